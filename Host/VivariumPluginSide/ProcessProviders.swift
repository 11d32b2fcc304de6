import ViperKit
import VivariumSupport
import VivariumWire

/// The business services the process's plugin provides (``ViperPlugin/providers``):
/// each provider made on the host's first call to its service, with the
/// host services it declared, and kept for the life of the process. Each
/// call runs as a task of its own, so a slow one holds up nothing else;
/// the host may cancel it.
@MainActor
final class ProcessProviders {
  private unowned let server: PluginServer
  private let types: [String: any ServiceProvider.Type]
  private var made: [String: ProvidedService] = [:]
  /// Calls being answered, by the host's call number.
  private let underWay = CallTasks()

  init(server: PluginServer, types: [any ServiceProvider.Type]) {
    self.server = server
    self.types = Dictionary(types.map { ($0.provision.service, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Carries out `request`, the host's call `call`, and answers it with
  /// its outcome once it has one: at once, with no hop, when the provider
  /// answers before its first `await`.
  func carryOut(_ call: UInt32, _ request: ServiceRequest) {
    underWay.start(call, { await self.outcome(of: request) }) { [server] outcome in
      _ = server.channel.send(.providerAnswered(call: call, outcome))
    }
  }

  /// Cancels the call `call`, if it is one of these; false when it is not.
  /// A cancelled call was answered by the host when it cancelled it.
  func cancel(_ call: UInt32) -> Bool { underWay.drop(call) }

  private func outcome(of request: ServiceRequest) async -> ServiceOutcome {
    guard let type = types[request.service] else {
      return .error(.failed, request, "the plugin does not provide '\(request.service)'")
    }
    let provider = made[request.service] ?? make(type)
    return await provider.outcome(of: request)
  }

  private func make(_ type: any ServiceProvider.Type) -> ProvidedService {
    // Every service goes to the host, which hands a provider one it does
    // not list as a stand-in that refuses it and reports it (not as nil).
    let declared = Set(type.services)
    let services = ChannelServices.services(
      server: server, module: 0, named: Services.Name.allCases, declared: declared)
    let provider = ProvidedService(type, services: services)
    made[provider.service] = provider
    return provider
  }
}
