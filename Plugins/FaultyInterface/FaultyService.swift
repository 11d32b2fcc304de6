import ViperKit

/// The business service the Faulty plugin provides and FaultyFrame's
/// `ask:{how}` uses, to show a provider's faults from the consumer's side:
/// an answer, a crash (the call fails as unavailable; the next call starts
/// the provider again) and a hang (the call fails at its deadline, and is
/// cancelled in the provider). Declared once here, in the package both
/// plugins depend on; each links its own copy.
public enum FaultyService: ServiceInterface {
  /// `faulty`.
  public static let name = "faulty"
  /// The interface's version.
  public static let version: SemanticVersion = "1.0"
  /// Answers `echo: TEXT (from process PID)`.
  public static let echo = ServiceOperation<String, String>("echo")
  /// Crashes the provider's process.
  public static let crash = ServiceOperation<String, String>("crash")
  /// Never answers; within 2 s on the host's clock, the call fails.
  public static let hang = ServiceOperation<String, String>("hang", deadline: 2)
  /// Fetches the URL through the host's http service and answers
  /// `STATUS: BODY`; only the hosts the Faulty plugin declares (127.0.0.1).
  public static let fetch = ServiceOperation<String, String>("fetch")
  /// Reads the clock, which the provider does not list in its services:
  /// the host hands it a stand-in that reports the use. Answers `clock` or
  /// `no clock`.
  public static let unlisted = ServiceOperation<String, String>("unlisted")
}
