import Testing
import ViperKit
import VivariumLoading
import VivariumRuntime

@Suite("Rendering the sample modules")
@MainActor
struct ModuleRenderingTests {
  private func presented(_ urn: String) async throws -> HostRuntime {
    let runtime = HostRuntime(catalog: BuildProducts.sampleCatalog, services: try TestServices.make())
    try await runtime.open(urn)
    await runtime.settleAll()
    return runtime
  }

  private static let rows = [
    ListRow(id: "1", title: "Buy milk", detail: "3 Jan 2026", marker: Marker(.positive, "enabled")),
    ListRow(id: "2", title: "Write the contract", detail: "14 Feb 2026", marker: Marker(.positive, "enabled")),
    ListRow(id: "3", title: "Water the plants", detail: "1 Mar 2026", marker: Marker(.negative, "disabled")),
    ListRow(id: "4", title: "Book the dentist", detail: "22 Apr 2026", marker: Marker(.negative, "disabled")),
  ]

  @Test func itemsListDrawsTheExpectedTree() async throws {
    let instance = try await presented("items:list")
    #expect(
      instance.top?.tree
        == .stack(
          .vertical,
          [
            .heading("Items"),
            .text("4 items, 2 enabled", tone: .muted),
            .list(id: "items", rows: Self.rows),
            .button(id: "deleteAll", title: "Delete all"),
          ]))
    #expect(instance.top?.lifecycle == [.attach, .appear])
  }

  @Test func itemDetailDrawsTheExpectedTree() async throws {
    let instance = try await presented("items:detail:2")
    #expect(
      instance.top?.tree
        == .stack(
          .vertical,
          [
            .heading("Write the contract"),
            .text("State: enabled", tone: .positive),
            .text("Created: 14 Feb 2026"),
            .stack(.horizontal, [.button(id: "toggle", title: "Disable"), .button(id: "back", title: "Back")]),
          ]))
  }

  @Test func missingItemIsShownNotCrashed() async throws {
    let instance = try await presented("items:detail:99")
    #expect(
      instance.top?.tree
        == .stack(
          .vertical,
          [
            .heading("Item not found"),
            .notice(.negative, "There is no item 99. Items: 1, 2, 3, 4."),
            .button(id: "back", title: "Back"),
          ]))
  }

  @Test func selectingARowPushesTheDetail() async throws {
    let instance = try await presented("items:list")
    let list = try #require(instance.top)
    try await instance.actUntilIdle(.select(list: "items", row: "3"))
    #expect(instance.layers.map { $0.map(\.urn) } == [["items:list", "items:detail:3"]])
    #expect(list.lifecycle == [.attach, .appear, .disappear])
    #expect(instance.top?.opener === list)
  }

  @Test func deleteAllAsksFirstThenEmptiesTheListAndSaysSo() async throws {
    let instance = try await presented("items:list")
    try await instance.actUntilIdle(.tap(button: "deleteAll"))
    let asking = try #require(instance.top?.tree)
    #expect(asking.contains(.notice(.warning, "Delete all 4 items? This cannot be undone.")), "\(asking)")
    #expect("\(asking)".contains("Water the plants"), "nothing is deleted before the answer")
    try await instance.actUntilIdle(.tap(button: "keepItems"))
    #expect(instance.top?.tree?.contains(.button(id: "deleteAll", title: "Delete all")) == true)
    try await instance.actUntilIdle(.tap(button: "deleteAll"))
    try await instance.actUntilIdle(.tap(button: "confirmDeleteAll"))
    #expect(
      instance.top?.tree
        == .stack(
          .vertical,
          [
            .heading("Items"), .text("0 items, 0 enabled", tone: .muted), .notice(.positive, "Deleted 4 items."),
            .text("No items."),
          ]))
    #expect(throws: ViewEventError.self) { try instance.send(.tap(button: "deleteAll")) }
  }

  @Test func toggleInTheDetailUpdatesTheListAfterBack() async throws {
    let instance = try await presented("items:list")
    try await instance.actUntilIdle(.select(list: "items", row: "1"))
    try await instance.actUntilIdle(.tap(button: "toggle"))
    guard case .stack(_, let children)? = instance.top?.tree else {
      Issue.record("no tree")
      return
    }
    #expect(children[1] == .text("State: disabled", tone: .negative))
    try await instance.actUntilIdle(.tap(button: "back"))
    #expect(instance.layers.map { $0.map(\.urn) } == [["items:list"]])
    guard case .stack(_, let list)? = instance.top?.tree, case .list(_, let rows) = list[2] else {
      Issue.record("the list is not drawn")
      return
    }
    #expect(rows[0].marker == Marker(.negative, "disabled"))
    #expect(instance.takeProblems().isEmpty)
  }

  @Test func eventsForElementsNotOnScreenAreRefusedWithWhatIsThere() async throws {
    let instance = try await presented("items:list")
    #expect {
      try instance.send(.select(list: "items", row: "42"))
    } throws: { error in
      // The list, the row asked for, and the rows there are.
      let message = (error as? ViewEventError)?.message ?? ""
      return ["'items'", "'42'", "1, 2, 3, 4"].allSatisfy(message.contains)
    }
    #expect {
      try instance.send(.type(field: "search", text: "x"))
    } throws: { error in
      (error as? ViewEventError)?.message.contains("'search'") == true
    }
  }

  @Test func shutdownSendsLifecycleAndReleasesEveryRole() async throws {
    let instance = try await presented("items:list")
    let node = try #require(instance.top)
    instance.shutdown()
    #expect(node.roles.filter(\.isAlive).isEmpty, "\(node.roles.filter(\.isAlive).map(\.typeName))")
    #expect(node.lifecycle == [.attach, .appear, .disappear, .detach])
  }
}

@Suite("Modules that misbehave")
@MainActor
struct MisbehavingModuleTests {
  private func runtime() throws -> HostRuntime {
    HostRuntime(catalog: ProbeRoutes.catalog(), services: try TestServices.make())
  }

  @Test func referenceCycleIsReportedAsALeak() async throws {
    let runtime = try runtime()
    try await runtime.open("probe:leaky")
    let roles = try #require(runtime.top?.roles)
    runtime.shutdown()
    let leaks = roles.filter(\.isAlive)
    #expect(Set(leaks.map(\.role)) == [.view, .presenter])
    #expect(leaks.map(\.typeName).contains("CyclicView"))
  }

  @Test func aLeakInTheRunningAppIsReportedNamingTheRoles() async throws {
    let runtime = try runtime()
    try await runtime.open("probe:leaky")
    runtime.shutdown()
    await runtime.awaitLeakChecks()
    let problems = runtime.takeProblems().map(\.description)
    #expect(
      problems.contains {
        $0.hasPrefix("probe:leaky") && $0.contains("CyclicView")
      })
    #expect(runtime.leaks.map(\.module).contains { $0.hasPrefix("probe:leaky") })
  }

  @Test func moduleThatDrawsNothingIsAnError() async throws {
    let runtime = try runtime()
    await #expect {
      try await runtime.open("probe:blank")
    } throws: { error in
      (error as? ResolveError)?.kind == .drewNothing
    }
    #expect(runtime.layers.isEmpty)
  }

  @Test func buildFailureNamesTheURNAndPlugin() async throws {
    let runtime = try runtime()
    await #expect {
      try await runtime.open("probe:broken")
    } throws: { error in
      let error = error as? ResolveError
      return error?.kind == .buildFailed
        && ["probe:broken", "probe.so", "the probe refuses to build"].allSatisfy { error?.message.contains($0) == true }
    }
  }
}
