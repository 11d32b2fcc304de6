/// One session's queue: the requests its modules made (and the host's own
/// about a module), waiting to be carried out in the order they were made,
/// and the steps waiting for them (``HostRuntime/afterRequests(_:)``).
/// A request is queued during the call that made it and carried out one
/// way only, in a turn (``HostRuntime/drain()``), with those it causes.
@MainActor
final class RequestQueue {
  /// The requests, oldest first: taken by position while they are carried
  /// out, not removed from the front, which would move the rest each time.
  private var requests: [HostRuntime.Request] = []
  /// Steps waiting for the requests under way to be carried out.
  private var settledSteps: [() -> Void] = []
  /// Whether the requests are being carried out (``carryOut(limit:_:)``).
  private(set) var isCarryingOut = false

  /// Whether nothing is queued, and no step waits.
  var isEmpty: Bool { requests.isEmpty && settledSteps.isEmpty }

  /// Queues `request` after those queued before it.
  func append(_ request: HostRuntime.Request) {
    requests.append(request)
  }

  /// Runs `step` once the requests being carried out (those of an attach:
  /// children embedding theirs) have been: at once when none are.
  func afterRequests(_ step: @escaping () -> Void) {
    if isCarryingOut { settledSteps.append(step) } else { step() }
  }

  /// Carries out every queued request with `perform`, in order, including
  /// those queued meanwhile, running the waiting steps whenever the
  /// requests run out; then forgets what is left. Not called again while
  /// it carries out: the call under way carries out what is queued. Stops
  /// after `limit` requests: false then, true otherwise.
  func carryOut(limit: Int, _ perform: (HostRuntime.Request) async -> Void) async -> Bool {
    precondition(!isCarryingOut, "the requests are carried out by the call under way")
    isCarryingOut = true
    defer {
      isCarryingOut = false
      requests.removeAll()
      settledSteps.removeAll()
    }
    var count = 0
    while count < requests.count || !settledSteps.isEmpty {
      if count == requests.count {
        let steps = settledSteps
        settledSteps.removeAll()
        for step in steps { step() }
        continue
      }
      let request = requests[count]
      count += 1
      guard count <= limit else { return false }
      await perform(request)
    }
    return true
  }
}
