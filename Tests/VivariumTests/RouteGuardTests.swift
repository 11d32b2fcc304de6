import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime

/// Route guards: the demo's dashboard wants a signed-in user; a link to it
/// opens the login form instead, says so, and resumes after signing in.
@Suite("Route guards")
@MainActor
struct RouteGuardTests {
  let runtime: HostRuntime

  init() throws {
    runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make(signedIn: false))
  }

  private var urns: [[String]] { runtime.layers.map { $0.map(\.urn) } }

  private func signIn() async throws {
    try runtime.send(.type(field: "user", text: "grace"))
    try runtime.send(.type(field: "password", text: "hopper"))
    try runtime.send(.tap(button: "signIn"))
    await runtime.letTimePass(2)
  }

  @Test func aGuardedLinkOpensTheLoginAndResumesAfterSigningIn() async throws {
    try await runtime.open("dashboard:home?user=grace/profile:grace")
    #expect(urns == [["login:form"]])
    #expect(
      runtime.notifications.takeNotices().map(\.text) == [
        "Sign in to open your dashboard. 'dashboard:home?user=grace/profile:grace' opens afterwards."
      ])
    try await signIn()
    #expect(urns == [["dashboard:home?user=grace", "profile:grace"]])
    #expect(runtime.takeProblems().isEmpty)
  }

  @Test func buildingAGuardedModuleIsRefusedNamingTheSetting() async throws {
    await #expect {
      try await runtime.build("dashboard:home")
    } throws: { error in
      let error = error as? ResolveError
      return error?.kind == .guarded && error?.refusedBy?.otherwise == "login:form"
        && error?.message.contains("'session.user'") == true
    }
  }

  @Test func signingOutGuardsTheDashboardAgain() async throws {
    try runtime.services.setSetting(.string("ada"), forKey: "session.user")
    try await runtime.open("dashboard:home")
    #expect(urns == [["dashboard:home"]])
    try runtime.services.setSetting(.string(""), forKey: "session.user")
    try await runtime.open("dashboard:home")
    #expect(urns == [["login:form"]])
  }
}
