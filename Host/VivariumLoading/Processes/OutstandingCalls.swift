import VivariumSupport

/// The host's calls into a plugin process that are not answered yet, in the
/// order sent, the callers waiting for their answers, and the deadline
/// that marks the oldest call overdue. The process answers the calls in
/// that order, one at a time, so only the oldest runs against the response
/// limit: its time starts when it was sent or when the answer before it
/// arrived, whichever is later. Times are those at which answers arrived on
/// the socket, not those at which the host got to them, so a busy host does
/// not make a process late.
///
/// One per ``PluginSupervisor``, for as long as it lives: the calls and
/// the deadline of one process are forgotten when it ends and when the
/// next starts (``processEnded()``, ``reset()``); the callers waiting are
/// resumed as the supervisor decides (``resumeAll(with:telling:)``).
@MainActor
final class OutstandingCalls {
  /// One call: its number, what it is for the person (`a tap on 'save'`),
  /// how to stop counting it as in flight, and when it was sent.
  struct Call {
    let id: UInt32
    let what: String
    let release: () -> Void
    let sent: ContinuousClock.Instant
  }

  /// Who is told when the oldest call's time is up: the supervisor.
  weak var owner: (any OutstandingCallsOwner)?
  /// How long the oldest call may go unanswered.
  private let responseLimit: Duration
  private var calls = FIFO<Call>()
  /// Since when the process has been on the oldest call.
  private var oldestSince = ContinuousClock.now
  /// The callers suspended in ``wait(for:)``, by call.
  private var awaiting: [UInt32: CheckedContinuation<PluginSupervisor.CallOutcome, Never>] = [:]
  /// The call that went unanswered, while the process is not responding.
  private var overdue: UInt32?
  /// Marks the oldest call overdue once the response limit passes: one
  /// timer at a time, waking when the oldest call sent while it was set is
  /// due, never set again or cancelled per call (``startDeadline()``).
  private var deadline: Task<Void, Never>?

  init(responseLimit: Duration) {
    self.responseLimit = responseLimit
  }

  /// The oldest call not answered yet.
  var oldest: Call? { calls.first }

  /// Adds `call`, just sent; when it is the only one, its time starts at
  /// its sending, and the deadline is set for it.
  func add(_ call: Call) {
    let first = calls.isEmpty
    calls.append(call)
    guard first else { return }
    oldestSince = call.sent
    startDeadline()
  }

  /// Suspends the caller until the call `id` is answered, or nothing waits
  /// for it any more (``resumeAll(with:telling:)``).
  func wait(for id: UInt32) async -> PluginSupervisor.CallOutcome {
    await withCheckedContinuation { awaiting[id] = $0 }
  }

  /// Whether a caller waits for the call `id`.
  func isAwaited(_ id: UInt32) -> Bool { awaiting[id] != nil }

  /// The answer `outcome` to the call `id` arrived at `arrival`: the call
  /// is released and forgotten (the next one's time starting if it was the
  /// oldest) and its caller, if one waits, resumed. True when it was the
  /// overdue call: the process answers again.
  func answered(_ id: UInt32, _ outcome: PluginSupervisor.CallOutcome, at arrival: ContinuousClock.Instant) -> Bool {
    let wasOverdue = id == overdue
    if wasOverdue { overdue = nil }
    if let index = calls.elements.firstIndex(where: { $0.id == id }) {
      let wasOldest = index == calls.elements.startIndex
      calls.remove(at: index).release()
      if wasOldest {
        if let next = calls.first { oldestSince = max(next.sent, arrival) }
        startDeadline()
      }
    }
    awaiting.removeValue(forKey: id)?.resume(returning: outcome)
    return wasOverdue
  }

  /// The process got an answer it waited for from the host at `time`: the
  /// oldest call's time starts again there, as the wait was the host's.
  func hostAnswered(at time: ContinuousClock.Instant) {
    guard !calls.isEmpty else { return }
    oldestSince = max(oldestSince, time)
    startDeadline()
  }

  /// The oldest call, when something that arrived at `arrival` came after
  /// its time was up, though the host had not got to saying so.
  func late(at arrival: ContinuousClock.Instant) -> Call? {
    guard let oldest, arrival > oldestSince + responseLimit else { return nil }
    return oldest
  }

  /// The call `id` is overdue: until it is answered the process is not
  /// responding, and nothing waits for any call. They stop counting as in
  /// flight, and stay, to be matched with their answers.
  func markOverdue(_ id: UInt32) {
    overdue = id
    for call in calls.elements { call.release() }
  }

  /// Resumes every caller waiting for an answer with `outcome`, in the
  /// order of their calls, after telling `telling` each call's number.
  func resumeAll(with outcome: PluginSupervisor.CallOutcome, telling: (UInt32) -> Void = { _ in }) {
    let waiting = awaiting
    awaiting.removeAll()
    for call in waiting.keys.sorted() {
      telling(call)
      waiting[call]?.resume(returning: outcome)
    }
  }

  /// The process ended: every call is released and forgotten, and the
  /// deadline stopped. Its callers are resumed apart.
  func processEnded() {
    for call in calls.elements { call.release() }
    calls.removeAll()
    deadline?.cancel()
    deadline = nil
  }

  /// A new process started: nothing of the last one's calls is left, and
  /// none of them is overdue.
  func reset() {
    processEnded()
    overdue = nil
  }

  /// Makes sure the oldest outstanding call is marked overdue once the
  /// response limit passes without its answer. A call's time only ever
  /// starts later than the one before it, so a timer already set is due no
  /// later than this one: it is left as it is, and on waking sets itself
  /// again for what is outstanding then. A round trip sets no timer and
  /// cancels none.
  private func startDeadline() {
    guard deadline == nil, !calls.isEmpty else { return }
    let due = oldestSince + responseLimit
    deadline = Task { @MainActor [weak self] in
      try? await Task.sleep(until: due, clock: .continuous)
      guard !Task.isCancelled, let self else { return }
      self.deadline = nil
      // An answer that arrived in time but waits for the host to get to it
      // is taken first: a busy host does not make a plugin late.
      self.owner?.takeWhatArrived()
      guard let oldest = self.oldest, self.owner?.isAnswering == true else { return }
      guard ContinuousClock.now >= self.oldestSince + self.responseLimit else { return self.startDeadline() }
      self.owner?.overdue(oldest)
    }
  }
}

/// What ``OutstandingCalls`` asks of the supervisor whose calls it keeps,
/// when the oldest call's time is up.
@MainActor
protocol OutstandingCallsOwner: AnyObject {
  /// Carries out what the process sent and the host has not got to yet:
  /// an answer that arrived in time is taken before its call is judged.
  func takeWhatArrived()
  /// Whether the process is answering: it has not ended, and is not
  /// marked as not responding already.
  var isAnswering: Bool { get }
  /// `call`, the oldest, went unanswered past the response limit.
  func overdue(_ call: OutstandingCalls.Call)
}
