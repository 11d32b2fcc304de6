/// The implementation of a business service a plugin provides (ViperKit
/// 2.7). List the type in ``ViperPlugin/providers``; the host makes one
/// instance, in the plugin's process, when a consumer first calls the
/// service, and keeps it until the process ends.
///
/// ```swift
/// @MainActor
/// final class WeatherProvider: ServiceProvider {
///   static let requires: [ServiceRequirement] = []
///   static let services: [Services.Name] = [.log]
///   init(services: Services) { … }
///   func answer(_ answers: inout ServiceAnswers<WeatherService>) {
///     answers.on(\.forecast) { [unowned self] city in try await self.forecast(for: city) }
///   }
/// }
/// ```
@MainActor
public protocol ServiceProvider: AnyObject, SendableMetatype {
  /// The interface this provider implements.
  associatedtype Interface: ServiceInterface
  /// The business services the provider itself uses, as a contract's
  /// ``Contract/requires``. Defaults to none.
  nonisolated static var requires: [ServiceRequirement] { get }
  /// The host services the provider uses, as a contract's
  /// ``Contract/services``. Defaults to none.
  nonisolated static var services: [Services.Name] { get }
  /// Makes the provider with the services it declared: called once, on
  /// first use. Must not block; start longer work from the first call.
  init(services: Services)
  /// Says how each operation is answered, with ``ServiceAnswers/on(_:_:)``.
  /// An operation with no answer fails its calls with
  /// ``ServiceCallError/Kind/failed``; the conformance checks report it.
  func answer(_ answers: inout ServiceAnswers<Interface>)
}

extension ServiceProvider {
  /// None.
  nonisolated public static var requires: [ServiceRequirement] { [] }
  /// None.
  nonisolated public static var services: [Services.Name] { [] }
  /// What the plugin's manifest says this provider provides.
  nonisolated public static var provision: ServiceProvision {
    ServiceProvision(Interface.self, requires: requires, services: services)
  }
}

/// How a provider answers each operation of its interface (ViperKit 2.7).
@MainActor
public struct ServiceAnswers<Interface: ServiceInterface> {
  typealias Answer = @MainActor (ServiceValue) async -> ServiceOutcome
  var answers: [String: Answer] = [:]
  /// What each operation answered takes, by name.
  var declared: [String: AnsweredOperation] = [:]

  /// A table with no answer yet; hosts and the test kit make these.
  public init() {}

  /// Answers `operation` with `answer`, which gets each call's request and
  /// returns its response, or throws the operation's declared failure. Any
  /// other error reaches the consumer as ``ServiceCallError/Kind/failed``,
  /// naming it. Cancelling the caller's work cancels the task `answer` runs in.
  public mutating func on<Request, Response>(
    _ operation: KeyPath<Interface.Type, ServiceOperation<Request, Response>>,
    _ answer: @escaping @MainActor (Request) async throws -> Response
  ) {
    let declared = Interface.self[keyPath: operation]
    self.declared[declared.name] = AnsweredOperation(
      name: declared.name, request: Request.self, deadline: declared.deadline)
    answers[declared.name] = { payload in
      func problem(_ kind: ServiceCallError.Kind, _ reason: String) -> ServiceOutcome {
        .error(ServiceCallError(kind, service: Interface.name, operation: declared.name, reason: reason))
      }
      let request: Request
      do {
        request = try payload.decode(as: Request.self)
      } catch {
        return problem(.undecodable, "the request did not decode as \(Request.self): \(error)")
      }
      let response: Response
      do {
        response = try await answer(request)
      } catch let failure as ServiceCallError where failure.service != Interface.name {
        // A service this provider depends on failed: its consumer is told
        // about this service, naming the other.
        let kind: ServiceCallError.Kind = failure.kind == .cancelled ? .cancelled : .unavailable
        return problem(kind, "it depends on \(failure.service).\(failure.operation), which failed: \(failure.reason)")
      } catch let failure as ServiceCallError {
        return .error(failure)
      } catch let failure where ObjectIdentifier(type(of: failure)) == ObjectIdentifier(declared.failure) {
        guard let encodable = failure as? any Encodable, let value = try? ServiceValue(encoding: encodable) else {
          return problem(.undecodable, "the failure \(failure) did not encode")
        }
        return .failure(value)
      } catch is CancellationError {
        return problem(.cancelled, "the call was cancelled")
      } catch {
        return problem(.failed, "the provider failed: \(error)")
      }
      do {
        return .response(try ServiceValue(encoding: response))
      } catch {
        return problem(.undecodable, "the response did not encode: \(error)")
      }
    }
  }

  /// Carries out one call of `operation` with `payload`: the host and the
  /// test kit call this.
  public func outcome(of operation: String, payload: ServiceValue) async -> ServiceOutcome {
    guard let answer = answers[operation] else {
      return .error(
        ServiceCallError(
          .failed, service: Interface.name, operation: operation,
          reason: "the provider does not answer '\(operation)' of \(Interface.name) \(Interface.version)"))
    }
    return await answer(payload)
  }

  /// The operations answered, sorted.
  public var operations: [String] { answers.keys.sorted() }

  /// The operations answered, sorted by name, each with its request type
  /// and deadline: for the conformance checks, which call each one.
  public var answered: [AnsweredOperation] { declared.values.sorted { $0.name < $1.name } }
}

/// An operation a provider answers, as the conformance checks see it
/// (ViperKit 2.7).
public struct AnsweredOperation: Sendable {
  /// The operation's name.
  public let name: String
  /// The type of its request.
  public let request: any (Decodable & Sendable).Type
  /// Seconds a call may take.
  public let deadline: Double
}

/// A provider made and ready for calls, its interface hidden: what the host
/// and the test kit hold (ViperKit 2.7).
@MainActor
public final class ProvidedService {
  /// The service's name.
  public let service: String
  /// The version provided.
  public let version: SemanticVersion
  /// The provider itself, kept alive.
  public let provider: any ServiceProvider
  /// The operations it answers (``ServiceAnswers/answered``).
  public let answered: [AnsweredOperation]
  private let carryOut: @MainActor (String, ServiceValue) async -> ServiceOutcome

  /// Makes `provider` with `services` and reads its answers.
  public init<Provider: ServiceProvider>(_ provider: Provider.Type, services: Services) {
    let made = Provider(services: services)
    var answers = ServiceAnswers<Provider.Interface>()
    made.answer(&answers)
    let table = answers
    self.service = Provider.Interface.name
    self.version = Provider.Interface.version
    self.provider = made
    answered = table.answered
    carryOut = { await table.outcome(of: $0, payload: $1) }
  }

  /// Carries out one call.
  public func outcome(of request: ServiceRequest) async -> ServiceOutcome {
    await carryOut(request.operation, request.payload)
  }
}
