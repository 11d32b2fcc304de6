import Foundation
import ViperKit

/// A module's restoration state (``StateRestoring``) as the host keeps it:
/// JSON text, read from the module after a change and handed back to a new
/// build of it before it is attached.
public enum Restoration {
  /// Why a module's state could not be read or given back.
  public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the person.
    public let message: String
    /// The message.
    public var description: String { message }
  }

  /// The most bytes of state kept for one module: far more than a draft or
  /// a form needs, little enough that the saved screens stay small.
  public static let sizeLimit = 64 << 10

  /// The state `module` would keep now, as JSON; nil when it keeps none.
  @MainActor
  public static func state(of module: Module) throws(Failure) -> String? {
    guard let role = module.restoring else { return nil }
    return try encode(role)
  }

  /// Gives `json` (from ``state(of:)``, possibly of an earlier build) back
  /// to `module`; throws, leaving the module as built, when it does not
  /// decode as the module's state.
  @MainActor
  public static func restore(_ json: String, to module: Module) throws(Failure) {
    guard let role = module.restoring else {
      throw Failure(message: "the module keeps no restoration state any more; it was built from its URN")
    }
    try decode(json, into: role)
  }

  @MainActor
  private static func encode<Role: StateRestoring>(_ role: Role) throws(Failure) -> String? {
    guard let state = role.restorationState else { return nil }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data: Data
    do {
      data = try encoder.encode(state)
    } catch {
      throw Failure(message: "its restoration state does not encode as JSON: \(error)")
    }
    guard data.count <= sizeLimit else {
      throw Failure(
        message:
          "its restoration state is \(data.count) bytes, over the \(sizeLimit)-byte limit; keep only what the URN and storage do not hold"
      )
    }
    return String(decoding: data, as: UTF8.self)
  }

  @MainActor
  private static func decode<Role: StateRestoring>(_ json: String, into role: Role) throws(Failure) {
    let state: Role.RestorationState
    do {
      state = try JSONDecoder().decode(Role.RestorationState.self, from: Data(json.utf8))
    } catch {
      throw Failure(
        message: "its saved restoration state does not decode as \(Role.RestorationState.self): \(reason(error))")
    }
    role.restore(state)
  }

  /// What a decoding error means, in a few words.
  private static func reason(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.isEmpty
        ? "the state" : "'" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "'"
    }
    switch error as? DecodingError {
    case .keyNotFound(let key, let context)?: return "\(path(context.codingPath + [key])) is missing"
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
      return "\(path(context.codingPath)) is not what the module expects"
    case .dataCorrupted(let context)?: return "\(path(context.codingPath)) is damaged or not JSON"
    default: return "\(error)"
    }
  }
}
