import VivariumSupport

/// The host's calls into a plugin process that are not answered yet, in the
/// order sent. The process answers them in that order, one at a time, so
/// only the oldest runs against the response limit: its time starts when
/// it was sent or when the answer before it arrived, whichever is later.
/// Times are those at which answers arrived on the socket, not those at
/// which the host got to them, so a busy host does not make a process late.
struct OutstandingCalls {
  /// One call: its number, what it is for the person (`a tap on 'save'`),
  /// how to stop counting it as in flight, and when it was sent.
  struct Call {
    let id: UInt32
    let what: String
    let release: () -> Void
    let sent: ContinuousClock.Instant
  }

  private var calls = FIFO<Call>()

  /// The oldest call not answered yet.
  var oldest: Call? { calls.first }
  /// Since when the process has been on the oldest call.
  private(set) var oldestSince = ContinuousClock.now

  /// Whether any call is waiting for its answer.
  var isEmpty: Bool { calls.isEmpty }

  /// Adds `call`; true when it is the oldest, so its time starts now.
  mutating func append(_ call: Call) -> Bool {
    let first = calls.isEmpty
    calls.append(call)
    if first { oldestSince = call.sent }
    return first
  }

  /// The call `id` was answered, the answer arriving at `arrival`: it is
  /// released and forgotten; true when it was the oldest, so the next one's
  /// time starts.
  mutating func answered(_ id: UInt32, at arrival: ContinuousClock.Instant) -> Bool {
    guard let index = calls.elements.firstIndex(where: { $0.id == id }) else { return false }
    let wasOldest = index == calls.elements.startIndex
    calls.remove(at: index).release()
    if wasOldest, let next = calls.first { oldestSince = max(next.sent, arrival) }
    return wasOldest
  }

  /// The process got an answer it waited for from the host at `time`: the
  /// oldest call's time starts again there, as the wait was the host's.
  /// True when there is such a call.
  mutating func restart(at time: ContinuousClock.Instant) -> Bool {
    guard !isEmpty else { return false }
    oldestSince = max(oldestSince, time)
    return true
  }

  /// Stops counting every call as in flight (the process stopped
  /// answering); they stay, to be matched with their answers.
  func releaseAll() {
    for call in calls.elements { call.release() }
  }

  /// Releases and forgets every call: the process ended.
  mutating func removeAll() {
    releaseAll()
    calls.removeAll()
  }
}
