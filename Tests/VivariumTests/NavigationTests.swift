import Testing
import ViperKit

@testable import VivariumRuntime

/// Push, present, pop, pop to root, dismiss and replace, with the releases and
/// lifecycle events they imply.
@Suite("Navigation")
@MainActor
struct NavigationTests {
  let host: ProbeHost
  var recorder: ProbeRecorder { host.recorder }
  var runtime: HostRuntime { host.runtime }

  init() async throws {
    host = try ProbeHost()
    try await host.runtime.open("probe:parent")
  }

  private func request(from urn: String, _ make: (any AppRouter) -> Void) throws {
    try host.request(from: urn, make)
  }

  private var urns: [[String]] { runtime.layers.map { $0.map(\.urn) } }

  @Test func pushCoversAndPopUncoversAndReleases() throws {
    try request(from: "probe:parent") { $0.push("probe:child:1") }
    #expect(urns == [["probe:parent", "probe:child:1"]])
    let pushed = try #require(runtime.top)
    #expect(recorder.log.suffix(3) == ["probe:child:1:attach", "probe:parent:disappear", "probe:child:1:appear"])
    try request(from: "probe:child:1") { $0.pop() }
    #expect(urns == [["probe:parent"]])
    #expect(recorder.log.suffix(3) == ["probe:child:1:disappear", "probe:parent:appear", "probe:child:1:detach"])
    #expect(pushed.roles.allSatisfy { !$0.isAlive }, "a popped module's roles must be released")
  }

  @Test func popToRootRemovesEveryPushedScreen() throws {
    try request(from: "probe:parent") { $0.push("probe:child:1") }
    try request(from: "probe:child:1") { $0.push("probe:child:2") }
    let removed = Array(runtime.layers[0].dropFirst())
    try request(from: "probe:child:2") { $0.popToRoot() }
    #expect(urns == [["probe:parent"]])
    #expect(removed.flatMap(\.roles).allSatisfy { !$0.isAlive })
  }

  @Test func presentAddsALayerAndDismissReleasesIt() throws {
    try request(from: "probe:parent") { $0.present("probe:child:1") }
    try request(from: "probe:child:1") { $0.push("probe:child:2") }
    #expect(urns == [["probe:parent"], ["probe:child:1", "probe:child:2"]])
    let modal = runtime.layers[1]
    try request(from: "probe:child:2") { $0.dismiss() }
    #expect(urns == [["probe:parent"]])
    #expect(modal.flatMap(\.roles).allSatisfy { !$0.isAlive }, "a dismissed module's roles must be released")
    #expect(runtime.top?.isAppeared == true)
  }

  @Test func replaceSwapsTheScreenAndReleasesTheOldOne() throws {
    let old = try #require(runtime.top)
    try request(from: "probe:parent") { $0.replace("probe:child:5") }
    #expect(urns == [["probe:child:5"]])
    #expect(old.roles.allSatisfy { !$0.isAlive })
  }

  @Test func impossibleRequestsAreReportedNotCarriedOut() throws {
    try request(from: "probe:parent") { router in
      router.pop()
      router.dismiss()
      router.push("nowhere:at:all")
    }
    let problems = runtime.takeProblems()
    let messages = problems.map(\.message)
    #expect(problems.map(\.module) == ["probe:parent", "probe:parent", "probe:parent"])
    #expect(messages.count == 3)
    // The request refused, in the order made; the push says which URN and why.
    #expect(messages[0].contains("pop") && messages[1].contains("dismiss"), "\(messages)")
    #expect(problems.map(\.cause) == [nil, nil, .notFound])
    #expect(messages[2].contains("'nowhere:at:all'"))
    #expect(urns == [["probe:parent"]])
  }

  /// A person's Esc: the modal on top first, then pushed screens, decided
  /// on what is shown when its turn comes; nothing to do on the first screen.
  @Test func escClosesTheModalThenPopsThenSaysThereIsNothingLeft() async throws {
    try request(from: "probe:parent") { $0.push("probe:child:1") }
    try request(from: "probe:child:1") { $0.present("probe:child:2") }
    #expect(try await runtime.backOrDismiss())
    #expect(urns == [["probe:parent", "probe:child:1"]])
    #expect(try await runtime.backOrDismiss())
    #expect(urns == [["probe:parent"]])
    #expect(try await runtime.backOrDismiss() == false)
    #expect(urns == [["probe:parent"]])
  }

  @Test func personGoesBackThroughModalsThenPushes() async throws {
    try request(from: "probe:parent") { $0.push("probe:child:1") }
    try request(from: "probe:child:1") { $0.present("probe:child:2") }
    try await runtime.back()
    #expect(urns == [["probe:parent", "probe:child:1"]])
    try await runtime.back()
    #expect(urns == [["probe:parent"]])
    await #expect(throws: HostRuntime.NavigationError.self) { try await runtime.back() }
    await #expect(throws: HostRuntime.NavigationError.self) { try await runtime.dismissModal() }
  }
}

/// The demo app's modules, composed across plugins.
@Suite("Demo app composition")
@MainActor
struct DemoCompositionTests {
  let runtime: HostRuntime

  init() throws {
    runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
  }

  @Test func dashboardEmbedsTabsFromThreePlugins() async throws {
    try await runtime.open("dashboard:home")
    let tabs = try #require(runtime.top?.slots.first)
    #expect(tabs.children.map(\.urn) == ["items:list", "products:search", "feed:home"])
    #expect(Set(tabs.children.map(\.pluginPath)).count == 3)
    try runtime.send(.tap(button: "tab.feed"))
    #expect(runtime.screen()?.slots.first?.children.first?.urn == "feed:home")
    #expect(runtime.takeProblems().isEmpty)
  }

  @Test func walletTopUpReturnsItsResultAndTheFeedHearsOfIt() async throws {
    try await runtime.open("feed:home")
    try runtime.send(.tap(button: "wallet/topUp"))
    #expect(runtime.layers.map { $0.map(\.urn) } == [["feed:home"], ["wallet:topup"]])
    try runtime.send(.select(list: "amounts", row: "20"))
    #expect(runtime.layers.map { $0.map(\.urn) } == [["feed:home"]])
    let wallet = try #require(runtime.top?.allChildren.first)
    #expect(wallet.tree == .stack(.horizontal, [.text("Wallet: €70"), .button(id: "topUp", title: "Top up")]))
    #expect(runtime.notifications.takeNotices().map(\.text) == ["Wallet balance is now €70."])
    try runtime.send(.tap(button: "mask"))
    #expect(wallet.tree == .stack(.horizontal, [.text("Wallet: € ••"), .button(id: "topUp", title: "Top up")]))
    #expect(runtime.takeProblems().isEmpty)
  }

  @Test func anItemChangedInTheDetailStaysChangedWhenReopenedAndAfterARestart() async throws {
    let data = try TemporaryDirectory()
    do {
      let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
      try await toggleTheFirstItemAndReopenIt(runtime)
    }
    let restarted = HostRuntime(catalog: BuildProducts.demoCatalog, services: TestServices.make(in: data))
    try await restarted.open("items:detail:1")
    await restarted.settleAll()
    #expect(restarted.top?.tree?.contains(.button(id: "toggle", title: "Enable")) == true)
    try await restarted.open("items:list")
    await restarted.settleAll()
    #expect(restarted.takeProblems().isEmpty)
  }

  private func toggleTheFirstItemAndReopenIt(_ runtime: HostRuntime) async throws {
    try await runtime.open("items:list")
    await runtime.settleAll()
    try await runtime.actUntilIdle(.select(list: "items", row: "1"))
    #expect(runtime.top?.tree?.contains(.button(id: "toggle", title: "Disable")) == true)
    try await runtime.actUntilIdle(.tap(button: "toggle"))
    try await runtime.back()
    await runtime.settleAll()
    try await runtime.actUntilIdle(.select(list: "items", row: "1"))
    #expect(runtime.top?.tree?.contains(.button(id: "toggle", title: "Enable")) == true)
  }

  @Test func feedConfigurationsUseDifferentPresenters() async throws {
    try await runtime.open("feed:home?style=compact")
    let compact = try #require(runtime.top)
    #expect(compact.roles.first { $0.role == .presenter }?.typeName == "CompactFeedPresenter")
    try await runtime.open("feed:home")
    #expect(runtime.top?.roles.first { $0.role == .presenter }?.typeName == "ExtendedFeedPresenter")
  }

  @Test func loginChecksCredentialsAndReplacesItselfWithTheDashboard() async throws {
    try await runtime.open("login:form")
    try runtime.send(.type(field: "user", text: "ada"))
    try runtime.send(.type(field: "password", text: "nope"))
    try runtime.send(.tap(button: "signIn"))
    #expect(runtime.top?.tree?.contains(.notice(.info, "Signing in as 'ada'…")) == true)
    await runtime.letTimePass(2)
    #expect(
      runtime.top?.tree?.contains(.notice(.negative, "Wrong user name or password for 'ada'. Try again.")) == true)
    try runtime.send(.type(field: "password", text: "lovelace"))
    try runtime.send(.tap(button: "signIn"))
    #expect(runtime.layers.map { $0.map(\.urn) } == [["login:form"]], "signing in takes time on the clock")
    await runtime.letTimePass(2)
    #expect(runtime.layers.map { $0.map(\.urn) } == [["dashboard:home?user=ada"]])
    #expect(runtime.services.setting("session.user") == .string("ada"))
  }

  @Test func cancellingTheSignInStopsItsWork() async throws {
    try await runtime.open("login:form")
    try runtime.send(.type(field: "user", text: "ada"))
    try runtime.send(.type(field: "password", text: "lovelace"))
    try runtime.send(.tap(button: "signIn"))
    #expect(!runtime.work.inFlight.isEmpty)
    try runtime.send(.tap(button: "cancel"))
    await runtime.letTimePass(2)
    #expect(runtime.layers.map { $0.map(\.urn) } == [["login:form"]])
    #expect(runtime.work.inFlight.isEmpty)
    #expect(runtime.top?.tree?.contains(.button(id: "signIn", title: "Sign in")) == true)
  }

}
