import Foundation
import Testing
import ViperKit
import ViperKitHosting

@testable import VivariumRuntime
@testable import VivariumSupport

/// A secret field (ViperKit 2.1): the view gives only how many characters
/// were typed, the host draws that many dots, and what is typed reaches the
/// view but never the screen, the JSON or the recorded command.
@Suite("Secret fields")
@MainActor
struct SecretFieldTests {
  /// The password the tests type: it appears nowhere on the login screen.
  private let secret = "s3cr3t-typed"

  private func loginSession() async throws -> Session {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make(signedIn: false))
    let session = Session(
      runtime: runtime, renderer: TextRenderer(), plugins: "plugins", routes: "routes", scheme: nil,
      settleLimit: TestServices.settleLimit)
    #expect(await session.execute("open login:form").errors.isEmpty)
    return session
  }

  private func json(_ value: some Encodable) throws -> String {
    String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
  }

  @Test func roundTripsThroughCodableWithALengthAndNoValue() throws {
    let node = ViewNode.secretField(id: "pin", label: "PIN", length: 4, placeholder: "4 digits")
    let data = try JSONEncoder().encode(node)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object.keys.sorted() == ["id", "kind", "label", "length", "placeholder"])
    #expect(object["kind"] as? String == "secretField")
    #expect(object["length"] as? Int == 4)
    #expect(try JSONDecoder().decode(ViewNode.self, from: data) == node)
    let tree = ViewNode.stack(.vertical, [node, .secretField(id: "again", label: "Again", length: 0)])
    #expect(try JSONDecoder().decode(ViewNode.self, from: try JSONEncoder().encode(tree)) == tree)
  }

  @Test func aNegativeLengthDoesNotDecode() {
    let json = #"{"kind":"secretField","id":"pin","label":"PIN","length":-1}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(ViewNode.self, from: Data(json.utf8)) }
  }

  @Test func theLineRendererDrawsADotPerCharacterLikeAMaskedField() {
    let renderer = TextRenderer(width: 40)
    let secret = ViewNode.secretField(id: "password", label: "Password", length: 8, placeholder: "password")
    #expect(renderer.lines(secret) == ["Password: [••••••••] (password)"])
    #expect(
      renderer.lines(.secretField(id: "password", label: "Password", length: 3)) == ["Password: [•••] (password)"])
    let coloured = TextRenderer(width: 40, style: TextStyle(colour: true))
    for length in [0, 1, 8] {
      let masked = ViewNode.field(
        id: "password", label: "Password", value: String(repeating: "•", count: length), placeholder: "password")
      let drawn = ViewNode.secretField(id: "password", label: "Password", length: length, placeholder: "password")
      #expect(renderer.lines(drawn) == renderer.lines(masked))
      #expect(coloured.lines(drawn) == coloured.lines(masked), "the placeholder is dimmed as a field's is")
    }
    #expect(coloured.lines(.secretField(id: "p", label: "P", length: 0, placeholder: "hint"))[0].contains("\u{1B}[2m"))
  }

  @Test func aLengthOutOfRangeDrawsNoDotsOrABoundedNumber() {
    let renderer = TextRenderer(width: 40)
    #expect(renderer.lines(.secretField(id: "p", label: "P", length: -5, placeholder: "hint")) == ["P: [hint] (p)"])
    let huge = renderer.lines(.secretField(id: "p", label: "P", length: .max))
    #expect(huge.count == 1)
    #expect(huge[0].filter { $0 == "•" }.count == TextRenderer.longestSecret)
  }

  @Test func aSecretFieldIsAFieldThatTakesTypingAndIsQualifiedInASlot() {
    let tree = ViewNode.stack(
      .vertical, [.field(id: "user", label: "User", value: ""), .secretField(id: "password", label: "P", length: 0)])
    let elements = ViewElements(tree)
    #expect(elements.fields == ["user", "password"])
    #expect(elements.secretFields == ["password"])
    #expect(elements.problem(with: .type(field: "password", text: "x")) == nil)
    #expect(elements.problem(with: .tap(button: "password")) != nil)
    let nested = ViewElements(tree.qualified("tabs/"))
    #expect(nested.secretFields == ["tabs/password"])
    #expect(nested.problem(with: .type(field: "tabs/password", text: "x")) == nil)
  }

  @Test func typingAPasswordThroughTheSessionSignsIn() async throws {
    let session = try await loginSession()
    #expect(await session.execute("type user ada").errors.isEmpty)
    let typed = await session.execute("type password lovelace")
    #expect(typed.errors.isEmpty)
    #expect(typed.output.contains("Password: [••••••••] (password)"))
    #expect(
      session.runtime.top?.tree?.contains(
        .secretField(id: "password", label: "Password", length: 8, placeholder: "password")) == true)
    #expect(session.runtime.isSecretField("password"))
    #expect(!session.runtime.isSecretField("user"))
    #expect(!session.runtime.isSecretField("nowhere"))
    #expect(await session.execute("tap signIn").errors.isEmpty)
    #expect(await session.execute("wait 2s").errors.isEmpty)
    #expect(session.runtime.layers.map { $0.map(\.urn) } == [["dashboard:home?user=ada"]], "the view got the text")
  }

  @Test func theJSONOfASessionStepNeverHoldsTheTypedSecret() async throws {
    let session = try await loginSession()
    let user = await session.execute("type user ada")
    #expect(user.command == "type user ada", "an ordinary field's text is kept")
    let typed = await session.execute("type password \(secret)")
    #expect(typed.errors.isEmpty)
    #expect(typed.command == "type password " + String(repeating: "•", count: secret.count))
    let encoded = try json(typed)
    #expect(!encoded.contains(secret))
    #expect(encoded.contains(#""kind":"secretField""#))
    for line in ["tap signIn", "wait 2s", "screen"] {
      #expect(try !json(await session.execute(line)).contains(secret), "\(line)")
    }
    #expect(session.runtime.top?.urn == "login:form", "a wrong password: still signing in")
  }

  @Test func vivariumRunInJSONModeNeverPrintsTheTypedSecret() throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let script = try data.write("s.vivarium", Data("type user ada\ntype password \(secret)\ntap signIn\n".utf8))
    let result = try ProcessRunner.vivarium(
      ["run", "--plugins", plugins.path, "--data", data.path, "--script", script, "--json"],
      environment: ["VIVARIUM_NOW": "2026-11-21T12:00:00Z", "COLUMNS": "80"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.contains(secret))
    #expect(!result.stderr.contains(secret))
    let commands = try result.stdout.split(separator: "\n").map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["command"] as? String
    }
    #expect(commands.contains("type password " + String(repeating: "•", count: secret.count)))
  }
}
