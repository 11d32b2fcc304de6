/// What a module answers when the host asks whether it may be left
/// (``LeaveGuard``).
public enum LeaveDecision: Codable, Hashable, Sendable {
  /// It may be left.
  case leave
  /// It stays; `reason` tells the person why and what to do
  /// (`Save the note or clear it first.`).
  case stay(reason: String)
  /// The person decides: the host asks `question` (`Discard your
  /// changes?`) with two buttons, `confirm` to leave all the same
  /// (`Discard`) and `cancel` to stay (`Keep editing`); `cancel` is
  /// focused first, and Esc gives it. Keep the labels a few words on one
  /// line. The host makes the change once the person confirms, without
  /// asking again.
  case ask(question: String, confirm: String, cancel: String)
}

/// A presenter that decides, in code, whether its module may be left: a
/// form with unsaved changes asks "Discard your changes?".
///
/// The host asks before it takes the module's screen away for good because
/// the person, or another module, asked for it: going back, dismissing its
/// modal, popping the screens above another, or opening a deep link over
/// it. It does not ask when the module's own router removes it (its
/// ``AppRouter/pop()``, ``AppRouter/dismiss()`` or
/// ``AppRouter/replace(_:)``: the module decided), when another screen
/// covers it, when the app quits, or when a module in a plugin process
/// does not answer within the host's response limit (a module that is not
/// responding may always be left). Embedded modules are asked too, inside
/// out.
///
/// A conformer must answer from what it holds, quickly, and must not wait
/// for navigation (the host's navigation waits for the answer; the screen
/// and keys do not). Out of process, an answer not given within the
/// host's response limit is cancelled (the task sees `Task.isCancelled`)
/// and the module is left. Asking has no effect of its own; the module is
/// left only after it answers ``LeaveDecision/leave``, or the person
/// confirms. When it stays, the command that asked returns normally.
@MainActor
public protocol LeaveGuard: ViperPresenter {
  /// Whether the module may be left now.
  func shouldLeave() async -> LeaveDecision
}

/// What the host asks a factory before it opens one of its modules
/// (``OpenGuard``).
public struct OpenRequest: Codable, Hashable, Sendable {
  /// The URN to open, as asked for (`items:detail:42`).
  public var urn: String
  /// Its arguments, checked against the contract.
  public var arguments: [String: ArgumentValue]

  /// A request to open `urn` with `arguments`.
  public init(urn: String, arguments: [String: ArgumentValue]) {
    self.urn = urn
    self.arguments = arguments
  }
}

/// What a factory answers when the host asks whether one of its modules
/// may open (``OpenGuard``).
public enum OpenDecision: Codable, Hashable, Sendable {
  /// It opens.
  case open
  /// It does not; `reason` tells the person why and what to do (`There is
  /// no item 99; pick one from the list.`).
  case refuse(reason: String)
  /// The module at `urn` opens in its place, when the person opened the
  /// link, replacing everything shown as a deep link does (shown modules
  /// that guard leaving are asked first); `reason` says why. A module's
  /// own navigation request is refused instead, with the reason.
  case redirect(urn: String, reason: String)
}

/// A factory that decides, in code, whether its module may open: a route
/// guard the target's plugin answers, where a declarative
/// ``RouteGuard`` (a setting that must be set) cannot say.
///
/// The host asks before every build of the factory's module, after it
/// checked the URN and arguments against the contract and after the
/// contract's declarative guards: for a link the person opens, a
/// navigation request of another module, an embed, a deep link's segment,
/// restoring the screens of the last session, rebuilding a module after a
/// restart or a reload. A conformer must answer from what it holds,
/// quickly, without side effects, and must not wait for navigation: the
/// host's navigation waits for the answer (the screen and keys do not).
/// Out of process, a decision later than the host's response limit still
/// counts: the module, already placed and shown as not responding, is
/// built then, or says in its place that it could not be.
public protocol OpenGuard: ModuleFactory {
  /// Whether the module of `request` may open now.
  @MainActor func shouldOpen(_ request: OpenRequest) async -> OpenDecision
}
