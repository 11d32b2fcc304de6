import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// Where business service calls go (docs/services.md): from a consumer (a
/// module, or a provider using another service) to the plugin the service
/// graph chose, in this process or in the provider's own. It checks that
/// the consumer declared the service and that the provider is in its
/// range, keeps each call's deadline on the host's clock, and logs every
/// call: caller, service, operation, time, outcome. It never waits on a
/// provider: each call suspends only its caller.
@MainActor
final class ServiceRouter {
  private unowned let runtime: HostRuntime
  /// The providers made in this process, by plugin and service.
  private var local: [String: ProvidedService] = [:]
  /// Plugins whose providers were given their services in their process, by the process.
  private var prepared: Set<ObjectIdentifier> = []

  init(runtime: HostRuntime) {
    self.runtime = runtime
  }

  /// The catalog changed (a reload): providers made from the old one are dropped.
  func catalogChanged() {
    local.removeAll()
  }

  /// What carries the calls of `caller`, a user of the plugin `plugin`
  /// requiring `requires`; nil when it requires no business service.
  /// `named` (the module's URN) in the log.
  func calls(
    of caller: ServiceGraph.User, named name: String, in plugin: String, requiring requires: [ServiceRequirement]
  ) -> (any ServiceCalling)? {
    requires.isEmpty
      ? nil : ConsumerCalls(router: self, caller: caller, name: name, plugin: plugin, requires: requires)
  }

  /// Carries out `request` for `caller` and returns how it ended, by its deadline.
  func call(_ request: ServiceRequest, from caller: ConsumerCalls) async -> ServiceOutcome {
    let start = ContinuousClock.now
    let (outcome, provider) = await route(request, from: caller)
    log(request, from: caller, provider: provider, outcome, took: ContinuousClock.now - start)
    return outcome
  }

  private func route(_ request: ServiceRequest, from caller: ConsumerCalls) async -> (ServiceOutcome, String?) {
    func error(_ kind: ServiceCallError.Kind, _ reason: String) -> ServiceOutcome {
      .error(ServiceCallError(kind, service: request.service, operation: request.operation, reason: reason))
    }
    guard let requirement = caller.requires.first(where: { $0.service == request.service }) else {
      return (
        error(
          .undeclared,
          "\(caller.caller) does not require '\(request.service)': add .required or .optional(\(request.service)) to requires"
        ), nil
      )
    }
    guard let service = runtime.serviceGraph.services.first(where: { $0.name == request.service }),
      requirement.versions.contains(service.version)
    else {
      let finding = runtime.serviceGraph.findings.first { $0.service == request.service && $0.isError }
      return (error(.unavailable, finding?.message ?? "no plugin provides '\(request.service)'"), nil)
    }
    guard let plugin = runtime.catalog.loaded.first(where: { $0.name == service.provider }) else {
      return (error(.unavailable, "its provider, the plugin \(service.provider), is not loaded"), service.provider)
    }
    let deadline = min(max(request.deadline.isNaN ? 0 : request.deadline, 0), 1e9)
    let late = ServiceCallError(
      .deadline, service: request.service, operation: request.operation,
      reason:
        "its provider, the plugin \(plugin.name), did not answer within \(Self.seconds(deadline)) on the host's clock")
    let race = FirstOutcome()
    let clock = runtime.services.clock
    let outcome = await withTaskCancellationHandler {
      await race.wait(
        for: [
          Task { @MainActor in race.take(await self.carryOut(request, with: plugin)) },
          Task { @MainActor in
            guard (try? await clock.sleepOutsideWork(for: deadline)) != nil else { return }
            race.take(.error(late))
          },
        ])
    } onCancel: {
      Task { @MainActor in race.take(.error(PluginProcess.cancelled(request))) }
    }
    return (outcome, plugin.name)
  }

  /// `request` carried out by `plugin`'s provider: made in this process on
  /// first use, or in the plugin's process.
  private func carryOut(_ request: ServiceRequest, with plugin: LoadedPlugin) async -> ServiceOutcome {
    var plugin = plugin
    if let activation = plugin.activation {
      do throws(Rejection) {
        plugin = try await activation.load()
      } catch {
        return .error(
          ServiceCallError(
            .unavailable, service: request.service, operation: request.operation,
            reason:
              "its provider, the plugin \(plugin.name), could not be loaded: \(error.reasons.joined(separator: "; "))"
          ))
      }
    }
    if let process = plugin.process {
      if prepared.insert(ObjectIdentifier(process)).inserted {
        process.prepareProviders(providerServices(of: plugin))
      }
      return await process.provide(request)
    }
    let key = plugin.path + "\u{0}" + request.service
    if let provided = local[key] { return await provided.outcome(of: request) }
    guard let type = plugin.providerTypes.first(where: { $0.provision.service == request.service }) else {
      return .error(
        ServiceCallError(
          .unavailable, service: request.service, operation: request.operation,
          reason: "its provider, the plugin \(plugin.name), has no implementation of it in its providers"))
    }
    let provided = ProvidedService(type, services: providerServices(of: plugin, only: type.provision))
    local[key] = provided
    return await provided.outcome(of: request)
  }

  /// The services of `plugin`'s providers (of `only` that one, when given):
  /// the host services they declared, and calls to the business services
  /// they require.
  private func providerServices(of plugin: LoadedPlugin, only: ServiceProvision? = nil) -> Services {
    let provisions = only.map { [$0] } ?? plugin.provides
    let requires = provisions.flatMap(\.requires)
    let name = provisions.map(\.service).joined(separator: ", ")
    let contract = Contract(
      urn: "provider:\(name)", summary: "the provider of \(name)",
      services: Array(Set(provisions.flatMap(\.services))).sorted(), requires: requires)
    let identity = PluginIdentity(name: plugin.name, path: plugin.path, conflict: nil)
    let services = runtime.services.services(for: contract, plugin: identity, urn: "\(plugin.name) (\(name))")
    guard let calls = calls(of: .service(name), named: "\(plugin.name) (\(name))", in: plugin.name, requiring: requires)
    else { return services }
    return services.adding(calls)
  }

  private func log(
    _ request: ServiceRequest, from caller: ConsumerCalls, provider: String?, _ outcome: ServiceOutcome, took: Duration
  ) {
    let ended: String
    let level: LogLevel
    switch outcome {
    case .response:
      (ended, level) = ("answered", .debug)
    case .failure:
      (ended, level) = ("failed with the operation's error", .info)
    case .error(let error):
      (ended, level) =
        error.kind == .cancelled ? ("cancelled", .debug) : ("\(error.kind.rawValue): \(error.reason)", .warning)
    }
    let by = provider.map { " by \($0)" } ?? ""
    runtime.services.logLine(
      level, module: caller.name,
      "service call \(request.service).\(request.operation)\(by) \(ended) in \(Self.milliseconds(took))")
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }

  private static func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
    return value < 10 ? "\((value * 100).rounded() / 100) ms" : "\(Int(value.rounded())) ms"
  }
}

/// The business service calls of one consumer: a module, or the providers
/// of one plugin. What a consumer does not require is refused.
@MainActor
final class ConsumerCalls: ServiceCalling {
  private unowned let router: ServiceRouter
  /// Who calls, for messages.
  let caller: ServiceGraph.User
  /// Who calls, for the log: a module's URN.
  let name: String
  /// The plugin it belongs to.
  let plugin: String
  /// The services it may call, with the versions it accepts.
  let requires: [ServiceRequirement]

  init(router: ServiceRouter, caller: ServiceGraph.User, name: String, plugin: String, requires: [ServiceRequirement]) {
    self.router = router
    self.caller = caller
    self.name = name
    self.plugin = plugin
    self.requires = requires
  }

  func call(_ request: ServiceRequest) async -> ServiceOutcome { await router.call(request, from: self) }
}

/// The first of several outcomes of one call (the provider's answer, the
/// deadline, the caller's cancellation): it ends the wait, and the tasks
/// still running for the others are cancelled. A provider that ignores
/// cancellation cannot hold its caller past the deadline.
@MainActor
final class FirstOutcome {
  private var continuation: CheckedContinuation<ServiceOutcome, Never>?
  private var taken: ServiceOutcome?
  private var tasks: [Task<Void, Never>] = []

  /// Waits for the first outcome, `tasks` running to give one.
  func wait(for tasks: [Task<Void, Never>]) async -> ServiceOutcome {
    if let taken {
      tasks.forEach { $0.cancel() }
      return taken
    }
    self.tasks = tasks
    return await withCheckedContinuation { continuation = $0 }
  }

  /// Takes `outcome` if it is the first.
  func take(_ outcome: ServiceOutcome) {
    guard taken == nil else { return }
    taken = outcome
    tasks.forEach { $0.cancel() }
    continuation?.resume(returning: outcome)
    continuation = nil
  }
}
