import ViperKit

/// A message of the protocol between the host and a plugin process
/// (docs/what-runs-where.md, "Processes"): each direction is a type of its
/// own, ``HostMessage`` (the host sends, the plugin process reads) and
/// ``PluginMessage`` (the plugin process sends, the host reads), so a
/// message sent the wrong way does not compile, and one that arrives the
/// wrong way does not decode. Each is sent as one length-prefixed frame
/// (``WireFrame``) over a socket pair.
///
/// A change to a case of either, its fields or their order is a new
/// ``WireProtocol/version``.
package protocol WireMessage: Codable, Equatable, Sendable {}

/// A role object of a plugin module, for leak reports.
package struct WireRole: Codable, Equatable, Sendable {
  /// Its role.
  package let role: Role
  /// Its type name.
  package let typeName: String

  /// The role object `typeName` playing `role`.
  package init(role: Role, typeName: String) {
    self.role = role
    self.typeName = typeName
  }

  /// `presenter ItemsPresenter`.
  package var description: String { "\(role.rawValue) \(typeName)" }
}

/// A store a plugin process keeps a copy of (``HostMessage/storeCopy(_:_:)``):
/// its modules read it there, without asking the host.
package enum WireStore: UInt8, Codable, Equatable, Sendable, CaseIterable {
  /// The plugin's storage; its values are strings.
  case storage
  /// The app-wide settings.
  case settings

  /// The service it is.
  package var service: Services.Name {
    switch self {
    case .storage: .storage
    case .settings: .settings
    }
  }
}

/// A call of a module's interactor, or of one of the process's providers,
/// to one of the host's services (``PluginMessage/callHostService(call:module:_:)``).
package enum HostServiceCall: Codable, Equatable, Sendable {
  case storageValue(key: String)
  case storageSet(key: String, value: String?)
  case storageKeys
  case settingValue(key: String)
  case settingSet(key: String, value: ArgumentValue?)
  case log(LogLevel, String)
  case notice(String, Tone)
  case alert(title: String, message: String)
  case now

  /// The service called: every host service but `http`, which has a
  /// message of its own (``PluginMessage/sendHTTP(call:module:_:)``).
  package var service: Services.Name {
    switch self {
    case .storageValue, .storageSet, .storageKeys: .storage
    case .settingValue, .settingSet: .settings
    case .log: .log
    case .notice, .alert: .notifications
    case .now: .clock
    }
  }
}

/// The host's answer to a call of the plugin's (``HostMessage/answer(call:_:)``).
package enum WireAnswer: Codable, Equatable, Sendable {
  /// Done, nothing to return.
  case none
  /// A stored string, or nil.
  case string(String?)
  /// A list of keys.
  case strings([String])
  /// A setting, or nil.
  case value(ArgumentValue?)
  /// The time.
  case number(Double)
  /// The call threw this message.
  case failed(String)
  /// How a business service call ended.
  case outcome(ServiceOutcome)
  /// The response to an http request.
  case httpResponse(HTTPResponse)
  /// Why an http request got no response.
  case httpFailed(HTTPError)
}

/// How work in a plugin ended.
package enum WireWorkOutcome: Codable, Equatable, Sendable {
  case finished
  case failed(String)
  case cancelled
}
