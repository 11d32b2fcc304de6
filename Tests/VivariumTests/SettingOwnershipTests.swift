import Foundation
import Testing
import ViperKit
import VivariumLoading

@testable import VivariumRuntime

/// Settings belong to the plugin that declares them (issue 30): another
/// plugin cannot set `session.user` to walk past the sign-in guard, nor
/// read what the owner keeps to itself; a key nobody declares is common.
@Suite("Settings owned by the plugin that declares them")
@MainActor
struct SettingOwnershipTests {
  private let data: TemporaryDirectory
  private let runtime: HostRuntime

  init() throws {
    data = try TemporaryDirectory()
    runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data, signedIn: false))
  }

  /// The settings `plugin` gets, as its modules do.
  private func settings(of plugin: PluginIdentity) throws -> any SettingsStore {
    let contract = Contract(urn: "probe", summary: "reads and writes settings", services: [.settings])
    return try #require(runtime.services.services(for: contract, plugin: plugin, urn: "probe").settings)
  }

  private var login: PluginIdentity {
    get throws { try #require(runtime.catalog.routes.first { $0.pattern.text == "login:form" }?.identity) }
  }

  @Test func anotherPluginCannotSignSomeoneInNorReadWhatTheOwnerKeepsToItself() throws {
    let intruder = try settings(of: PluginIdentity(name: "IntruderPlugin", path: data.path + "/libIntruder.so"))
    #expect {
      try intruder.set(.string("ada"), forKey: "session.user")
    } throws: { error in
      error is SaveRefused && "\(error)".contains("LoginPlugin") && "\(error)".contains("'session.user'")
    }
    #expect(runtime.services.setting("session.user") == nil, "the guard's setting is unchanged")
    #expect(runtime.services.recentLog.contains { $0.contains("IntruderPlugin") && $0.contains("session.user") })
    // The owner may; then others read it (declared readable by others), but not its private one.
    let owner = try settings(of: try login)
    try owner.set(.string("ada"), forKey: "session.user")
    try owner.set(.string("ada"), forKey: "login.lastUser")
    #expect(intruder.value(forKey: "session.user") == .string("ada"))
    #expect(intruder.value(forKey: "login.lastUser") == nil)
    #expect(owner.value(forKey: "login.lastUser") == .string("ada"))
    // Nor in the copy a plugin process would be handed.
    let copied = try #require(intruder as? any CopiedStore)
    #expect(copied.entries["login.lastUser"] == nil && copied.entries["session.user"] == .string("ada"))
    // A key nobody declares is anyone's.
    try intruder.set(.bool(true), forKey: "intruder.theme")
    #expect(owner.value(forKey: "intruder.theme") == .bool(true))
  }

  @Test func onePluginFillingTheSettingsFailsOnlyItsOwnSavesNamingItsLimit() throws {
    let hog = try settings(of: PluginIdentity(name: "HogPlugin", path: data.path + "/libHog.so"))
    let chunk = ArgumentValue.string(String(repeating: "x", count: 256 << 10))
    var refusal: String?
    // 80 of them: more than the whole file may hold.
    for index in 0..<80 {
      do {
        try hog.set(chunk, forKey: "hog.\(index)")
      } catch {
        refusal = "\(error)"
        break
      }
    }
    let said = try #require(refusal)
    #expect(said.contains("HogPlugin") && said.contains("512 KiB"), "\(said)")
    #expect(runtime.services.recentLog.contains { $0.contains("HogPlugin") && $0.contains("512 KiB") })
    // It may still shrink what it keeps, and another plugin saves as before.
    try hog.set(nil, forKey: "hog.0")
    let owner = try settings(of: try login)
    try owner.set(.string("ada"), forKey: "session.user")
    #expect(runtime.services.setting("session.user") == .string("ada"))
  }

  @Test func aKeyTwoPluginsDeclareIsChangedByNeitherAndTheMessageNamesBoth() throws {
    let recorder = ProbeRecorder()
    let declaring = { (name: String) in
      LoadedPlugin(
        path: "/plugins/lib\(name).so", name: name,
        factories: [
          ProbeFactory(
            contract: Contract(
              urn: "\(name.lowercased()):home", summary: "X.", settings: [SettingDeclaration("theme")]),
            recorder: recorder
          ).factory
        ])
    }
    let ownership = SettingOwnership([declaring("One"), declaring("Two")])
    let refusal = try #require(ownership.writeRefusal("theme", plugin: "One", pluginAt: "/plugins/libOne.so"))
    #expect(refusal.contains("/plugins/libOne.so") && refusal.contains("/plugins/libTwo.so"))
    #expect(ownership.mayRead("theme", pluginAt: "/plugins/libOne.so"))
    #expect(!ownership.mayRead("theme", pluginAt: "/plugins/libThree.so"))
  }
}
