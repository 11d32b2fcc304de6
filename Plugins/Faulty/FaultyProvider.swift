import FaultyInterface
import Glibc
import ViperKit

/// Provides ``FaultyService``: answers `echo`, crashes on `crash`, and never
/// answers `hang` (logging when the host cancels it).
@MainActor
final class FaultyProvider: ServiceProvider {
  static let services: [Services.Name] = [.log, .http]
  private let log: (any ModuleLogger)?
  private let http: (any HTTPClient)?
  /// Not listed in ``services``: what `unlisted` reads.
  private let clock: (any WallClock)?

  init(services: Services) {
    log = services.log
    http = services.http
    clock = services.clock
  }

  func answer(_ answers: inout ServiceAnswers<FaultyService>) {
    // The process that answered, so that a benchmark can tell a stale build's answer.
    answers.on(\.echo) { "echo: \($0) (from process \(getpid()))" }
    answers.on(\.crash) { _ in fatalError("the faulty service crashes on purpose") }
    answers.on(\.fetch) { [http] url in
      guard let http else { return "no http service" }
      do {
        let response = try await http.send(HTTPRequest(url))
        return "\(response.status): \(response.text)"
      } catch let error as HTTPError {
        return "refused (\(error.kind.rawValue))"
      }
    }
    answers.on(\.unlisted) { [clock] _ in
      guard let clock else { return "no clock" }
      _ = clock.now()
      return "clock"
    }
    answers.on(\.hang) { [log] _ in
      do {
        try await Task.sleep(for: .seconds(86_400 * 365))
      } catch {
        log?.log(.info, "faulty service: hang cancelled")
        throw error
      }
      return ""
    }
  }
}
