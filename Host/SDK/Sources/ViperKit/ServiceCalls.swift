/// One operation of a business service, declared as a static property of
/// the service's ``ServiceInterface`` (ViperKit 2.7): its name on the wire,
/// the `Codable` types of its request and response, the error a provider
/// may throw for consumers to catch, and how long a call may take.
///
/// ```swift
/// public enum WeatherService: ServiceInterface {
///   public static let name = "weather"
///   public static let version: SemanticVersion = "1.0"
///   public static let forecast = ServiceOperation<City, Forecast>("forecast", failure: WeatherFailure.self)
/// }
/// ```
///
/// A consumer calls it on a ``ServiceHandle``: `try await weather.forecast(city)`;
/// a provider answers it in ``ServiceProvider/answer(_:)``.
public struct ServiceOperation<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable {
  /// The operation's name on the wire, unique in its service.
  public let name: String
  /// The error a provider throws for consumers to catch as its own type;
  /// any other error reaches them as a ``ServiceCallError``.
  public let failure: any (Error & Codable & Sendable).Type
  /// Seconds a call may take, on the host's clock, unless the caller says
  /// otherwise; then it fails with ``ServiceCallError/Kind/deadline``.
  public let deadline: Double

  /// The operation `name`, failing with `failure`, and calls limited to
  /// `deadline` seconds by default.
  public init(
    _ name: String, failure: any (Error & Codable & Sendable).Type = ServiceCallError.self, deadline: Double = 5
  ) {
    self.name = name
    self.failure = failure
    self.deadline = deadline
  }
}

/// A call that failed for a reason of the service, not of the operation:
/// no provider, a provider that crashed or did not answer in time, a value
/// that did not decode (ViperKit 2.7). Its ``kind`` is stable; its
/// ``reason`` is for people.
public struct ServiceCallError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
  /// Why the call failed.
  public enum Kind: String, Codable, Hashable, Sendable {
    /// No provider can answer now: none is installed in range, or it
    /// crashed or is being replaced. The next call may succeed.
    case unavailable
    /// The call took longer than its deadline.
    case deadline
    /// The consumer's contract does not list the service: add it to `requires`.
    case undeclared
    /// A value did not decode on the other side: the two sides' declarations differ.
    case undecodable
    /// The provider threw an error the operation does not declare, or does not answer the operation.
    case failed
    /// The calling work was cancelled.
    case cancelled
  }

  /// Why the call failed.
  public var kind: Kind
  /// The service's name.
  public var service: String
  /// The operation's name.
  public var operation: String
  /// What went wrong and what to do, naming the provider when there is one.
  public var reason: String

  /// A failure of `kind`, for the host and the test kit to report.
  public init(_ kind: Kind, service: String, operation: String, reason: String) {
    self.kind = kind
    self.service = service
    self.operation = operation
    self.reason = reason
  }

  /// `weather.forecast: REASON`.
  public var description: String { "\(service).\(operation): \(reason)" }
}

extension ServiceCallError {
  /// `caller` (a module's URN, or a provider) made `request` without
  /// requiring its service: what to declare. Hosts and test harnesses
  /// refuse such a call with it.
  public static func undeclared(_ request: ServiceRequest, by caller: String) -> ServiceCallError {
    ServiceCallError(
      .undeclared, service: request.service, operation: request.operation,
      reason: "\(caller) does not require '\(request.service)': add .required or .optional for it to its requires")
  }
}

extension ServiceOutcome {
  /// The call `request` failed for a reason of the service, of `kind`.
  public static func error(_ kind: ServiceCallError.Kind, _ request: ServiceRequest, _ reason: String) -> ServiceOutcome
  {
    .error(ServiceCallError(kind, service: request.service, operation: request.operation, reason: reason))
  }
}

/// One call as it leaves a consumer: the service and operation by name and
/// the request in its service-value form (ViperKit 2.7). Made by
/// ``ServiceHandle``; carried by the host.
public struct ServiceRequest: Codable, Hashable, Sendable {
  /// The service's name.
  public var service: String
  /// The operation's name.
  public var operation: String
  /// The request.
  public var payload: ServiceValue
  /// Seconds the call may take.
  public var deadline: Double

  /// A request for `operation` of `service`.
  public init(service: String, operation: String, payload: ServiceValue, deadline: Double) {
    self.service = service
    self.operation = operation
    self.payload = payload
    self.deadline = deadline
  }
}

/// How a call ended, as it comes back to the consumer (ViperKit 2.7).
public enum ServiceOutcome: Codable, Hashable, Sendable {
  /// The provider's response.
  case response(ServiceValue)
  /// The error the provider threw, of the operation's declared failure type.
  case failure(ServiceValue)
  /// The call failed for a reason of the service.
  case error(ServiceCallError)
}

/// What carries a module's or a provider's calls to business services: the
/// host, or a test double (ViperKit 2.7). One primitive requirement;
/// ``ServiceHandle`` does the typing.
@MainActor
public protocol ServiceCalling: AnyObject, Sendable {
  /// Carries out `request` and returns how it ended, by its deadline at the
  /// latest. A conformer must answer every call, and end it with
  /// ``ServiceCallError/Kind/cancelled`` when the calling task is cancelled.
  func call(_ request: ServiceRequest) async -> ServiceOutcome
}

/// A consumer's typed handle on a business service (ViperKit 2.7): call an
/// operation as a method, `try await weather.forecast(city)`. Get one from
/// ``Services/service(_:)``. It stays valid while providers crash, restart
/// or are replaced: each call goes to whichever provider answers now.
@MainActor
@dynamicMemberLookup
public struct ServiceHandle<Interface: ServiceInterface>: Sendable {
  let calls: (any ServiceCalling)?

  /// A handle whose calls go through `calls`; nil fails each call as
  /// ``ServiceCallError/Kind/undeclared``. Hosts and the test kit make these.
  public init(calls: (any ServiceCalling)?) {
    self.calls = calls
  }

  /// The operation `operation` of the interface, ready to call.
  public subscript<Request, Response>(
    dynamicMember operation: KeyPath<Interface.Type, ServiceOperation<Request, Response>>
  ) -> ServiceCall<Request, Response> {
    ServiceCall(service: Interface.name, operation: Interface.self[keyPath: operation], calls: calls)
  }
}

/// One operation of a ``ServiceHandle``, called as a function (ViperKit 2.7).
@MainActor
public struct ServiceCall<Request: Codable & Sendable, Response: Codable & Sendable>: Sendable {
  let service: String
  let operation: ServiceOperation<Request, Response>
  let calls: (any ServiceCalling)?

  /// Calls the operation with `request` and returns the provider's
  /// response. Throws the operation's declared failure when the provider
  /// threw one, else a ``ServiceCallError``; `deadline` (seconds) replaces
  /// the operation's own.
  public func callAsFunction(_ request: Request, deadline: Double? = nil) async throws -> Response {
    func problem(_ kind: ServiceCallError.Kind, _ reason: String) -> ServiceCallError {
      ServiceCallError(kind, service: service, operation: operation.name, reason: reason)
    }
    let payload: ServiceValue
    do {
      payload = try ServiceValue(encoding: request)
    } catch {
      throw problem(.undecodable, "the request did not encode: \(error)")
    }
    let request = ServiceRequest(
      service: service, operation: operation.name, payload: payload, deadline: deadline ?? operation.deadline)
    guard let calls else { throw ServiceCallError.undeclared(request, by: "the module") }
    switch await calls.call(request) {
    case .response(let value):
      do {
        return try value.decode(as: Response.self)
      } catch {
        throw problem(.undecodable, "the response did not decode as \(Response.self): \(error)")
      }
    case .failure(let value):
      let failure = operation.failure
      let decoded: any Error
      do {
        decoded = try value.decode(as: failure)
      } catch {
        throw problem(.undecodable, "the provider's failure did not decode as \(failure): \(error)")
      }
      throw decoded
    case .error(let failure):
      throw failure
    }
  }
}
