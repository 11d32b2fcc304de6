import Testing
import ViperKit
import VivariumHost

@Suite("Rendering the sample modules")
struct ModuleRenderingTests {
  private func presented(_ urn: String) throws -> ModuleInstance {
    let instance = try ModuleInstance(BuildProducts.sampleCatalog.resolve(urn))
    try instance.present()
    return instance
  }

  private static let rows = [
    ListRow(id: "1", title: "Buy milk", detail: "3 Jan 2026", marker: Marker(.positive, "enabled")),
    ListRow(id: "2", title: "Write the contract", detail: "14 Feb 2026", marker: Marker(.positive, "enabled")),
    ListRow(id: "3", title: "Water the plants", detail: "1 Mar 2026", marker: Marker(.negative, "disabled")),
    ListRow(id: "4", title: "Book the dentist", detail: "22 Apr 2026", marker: Marker(.negative, "disabled")),
  ]

  @Test func itemsListDrawsTheExpectedTree() throws {
    let instance = try presented("items:list")
    #expect(
      instance.tree
        == .stack(
          .vertical,
          [
            .heading("Items"),
            .text("4 items, 2 enabled", tone: .muted),
            .list(id: "items", rows: Self.rows),
            .button(id: "deleteAll", title: "Delete all"),
          ]))
    #expect(instance.lifecycle == [.attach, .appear])
  }

  @Test func itemDetailDrawsTheExpectedTree() throws {
    let instance = try presented("items:detail:2")
    #expect(
      instance.tree
        == .stack(
          .vertical,
          [
            .heading("Write the contract"),
            .text("State: enabled", tone: .positive),
            .text("Created: 14 Feb 2026"),
            .stack(.horizontal, [.button(id: "toggle", title: "Disable"), .button(id: "back", title: "Back")]),
          ]))
  }

  @Test func missingItemIsShownNotCrashed() throws {
    let instance = try presented("items:detail:99")
    #expect(
      instance.tree
        == .stack(
          .vertical,
          [
            .heading("Item not found"),
            .notice(.negative, "There is no item 99. Items: 1, 2, 3, 4."),
            .button(id: "back", title: "Back"),
          ]))
  }

  @Test func selectingARowAsksTheRouterForTheDetail() throws {
    let instance = try presented("items:list")
    try instance.send(.select(list: "items", row: "3"))
    #expect(instance.navigationRequests == [.push("items:detail:3")])
  }

  @Test func deleteAllEmptiesTheListAndSaysSo() throws {
    let instance = try presented("items:list")
    try instance.send(.tap(button: "deleteAll"))
    #expect(
      instance.tree
        == .stack(
          .vertical,
          [
            .heading("Items"), .text("0 items, 0 enabled", tone: .muted), .notice(.positive, "Deleted 4 items."),
            .text("No items."),
          ]))
    #expect(throws: ViewEventError.self) { try instance.send(.tap(button: "deleteAll")) }
  }

  @Test func toggleAndBackInTheDetail() throws {
    let instance = try presented("items:detail:1")
    try instance.send(.tap(button: "toggle"))
    guard case .stack(_, let children)? = instance.tree else {
      Issue.record("no tree")
      return
    }
    #expect(children[1] == .text("State: disabled", tone: .negative))
    try instance.send(.tap(button: "back"))
    #expect(instance.navigationRequests == [.pop])
  }

  @Test func eventsForElementsNotOnScreenAreRefusedWithWhatIsThere() throws {
    let instance = try presented("items:list")
    #expect {
      try instance.send(.select(list: "items", row: "42"))
    } throws: { error in
      (error as? ViewEventError)?.message == "list 'items' has no row '42'; rows: 1, 2, 3, 4"
    }
    #expect {
      try instance.send(.type(field: "search", text: "x"))
    } throws: { error in
      (error as? ViewEventError)?.message == "there is no field 'search' on this screen; fields: none"
    }
  }

  @Test func teardownSendsLifecycleAndReleasesEveryRole() throws {
    let instance = try presented("items:list")
    let leaks = instance.tearDown()
    #expect(leaks.isEmpty, "\(leaks.map(\.typeName))")
    #expect(instance.lifecycle == [.attach, .appear, .disappear, .detach])
  }
}

@Suite("Modules that misbehave")
struct MisbehavingModuleTests {
  @Test func referenceCycleIsReportedAsALeak() throws {
    let instance = try ModuleInstance(ProbeRoutes.catalog().resolve("probe:leaky"))
    try instance.present()
    let leaks = instance.tearDown()
    #expect(Set(leaks.map(\.role)) == [.view, .presenter])
    #expect(leaks.map(\.typeName).contains("CyclicView"))
  }

  @Test func moduleThatDrawsNothingIsAnError() throws {
    let instance = try ModuleInstance(ProbeRoutes.catalog().resolve("probe:blank"))
    #expect {
      try instance.present()
    } throws: { error in
      (error as? ResolveError)?.kind == .drewNothing
    }
  }

  @Test func buildFailureNamesTheURNAndPlugin() throws {
    let resolved = try ProbeRoutes.catalog().resolve("probe:broken")
    #expect {
      try ModuleInstance(resolved)
    } throws: { error in
      let error = error as? ResolveError
      return error?.kind == .buildFailed
        && error?.message == "probe:broken (probe.so) could not be built: the probe refuses to build"
    }
  }
}
