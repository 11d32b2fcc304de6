import Foundation
import ItemsCatalog
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit
import VivariumApp

/// The sample plugins' own tests, written with the test kit as a plugin author
/// would: each module built by ModuleHarness with fake services, driven by view
/// events, and checked by what it draws, requests, emits and stores.
@Suite("Sample plugins, through the test kit")
@MainActor
struct SamplePluginTests {
  /// The factory for `pattern`, from the plugin the host loaded.
  private func factory(_ pattern: String) throws -> any ModuleFactory {
    try #require(BuildProducts.demoCatalog.routes.first { $0.pattern.text == pattern }?.source.factory)
  }

  private func presented(
    _ pattern: String, _ arguments: [String: ArgumentValue] = [:], services: FakeServices = FakeServices()
  )
    async throws -> ModuleHarness
  {
    let harness = try ModuleHarness(try factory(pattern), arguments: arguments, services: services)
    await harness.present()
    return harness
  }

  @Test(arguments: BuildProducts.pluginNames)
  func pluginPassesEveryConformanceCheck(plugin: String) throws {
    let path = "\(BuildProducts.directory)/lib\(plugin).so"
    let factories = BuildProducts.demoCatalog.loaded.first { $0.path == path }?.factoriesInThisProcess ?? []
    #expect(!factories.isEmpty)
    // Time and memory are measured by `vivarium check`, in a process of their own.
    let report = Conformance.run(factories: factories, strictness: 10, skip: ["speed", "leaks.repeated"])
    #expect(report.failures.isEmpty, "\(report)")
    #expect(report.results.filter { $0.status == .passed }.count >= factories.count * 10)
  }

  /// Fake services with a fake of the items service, as the items modules'
  /// author tests them without the ItemsList plugin's provider.
  private func withItems() -> (FakeServices, FakeItems) {
    let services = FakeServices()
    let items = FakeItems()
    services.provide(ItemsService.self) { answers in
      answers.on(\.list) { filter in items.items.filter(filter.admits) }
      answers.on(\.item) { id in
        guard let item = items.items.first(where: { $0.id == id }) else { throw ItemsFailure(.noItem, "no \(id)") }
        return item
      }
      answers.on(\.setEnabled) { change in
        guard let index = items.items.firstIndex(where: { $0.id == change.itemID }) else {
          throw ItemsFailure(.noItem, "no \(change.itemID)")
        }
        items.items[index].enabled = change.enabled
        return items.items[index]
      }
      answers.on(\.delete) { filter in
        let count = items.items.filter(filter.admits).count
        items.items.removeAll(where: filter.admits)
        return count
      }
    }
    return (services, items)
  }

  @Test func itemsListAsksForTheDetailOfTheSelectedRow() async throws {
    let list = try await presented("items:list", services: withItems().0)
    try list.send(.select(list: "items", row: "2"))
    #expect(list.requests == [.push("items:detail:2")])
    #expect(list.roles.count == 4)
  }

  @Test func itemsDetailChangesTheItemThroughTheServiceAndTellsItsOpener() async throws {
    let (services, items) = withItems()
    let detail = try await presented("items:detail:{itemID}", ["itemID": .int(3)], services: services)
    #expect(detail.urn == "items:detail:3")
    try detail.send(.tap(button: "toggle"))
    await detail.settle()
    #expect(items.items.first { $0.id == 3 }?.enabled == true, "the change is the service's")
    #expect(detail.outputs == [Message("itemChanged", ["itemID": .int(3), "enabled": .bool(true)])])
    try detail.send(.tap(button: "back"))
    #expect(detail.requests == [.pop])
  }

  @Test func itemsListSaysWhyWhenTheItemsServiceFails() async throws {
    // No provider at all: the call fails as unavailable, and the list says so.
    let list = try await presented("items:list")
    let tree = try #require(list.tree)
    #expect("\(tree)".contains("(unavailable)"), "the kind of the failure is shown: \(tree)")
    #expect(throws: HarnessError.self) { try list.send(.tap(button: "deleteAll")) }
  }

  @Test func loginRemembersTheUserAndReplacesItselfWithTheDashboard() async throws {
    let services = FakeServices()
    let login = try await presented("login:form", services: services)
    try login.send(.type(field: "user", text: "grace"))
    try login.send(.type(field: "password", text: "hopper"))
    guard case .stack(_, let typed)? = login.tree else { throw HarnessError(message: "no tree") }
    #expect(typed.contains(.secretField(id: "password", label: "Password", length: 6, placeholder: "password")))
    try login.send(.tap(button: "signIn"))
    #expect(login.requests.isEmpty, "signing in takes 1.5 s on the module's clock")
    await login.advance(by: 1.5)
    #expect(login.requests == [.replace("dashboard:home?user=grace")])
    #expect(services.settings["login.lastUser"] == .string("grace"))
    #expect(services.settings["session.user"] == .string("grace"))
    #expect(services.logLines == ["info: 'grace' signed in"])
    let again = try await presented("login:form", services: services)
    guard case .stack(_, let children)? = again.tree else { throw HarnessError(message: "no tree") }
    #expect(children.contains(.field(id: "user", label: "User", value: "grace", placeholder: "user name")))
  }

  @Test func productSearchKeepsFavouritesInStorageAndSaysSo() async throws {
    let services = FakeServices()
    let search = try await presented("products:search", services: services)
    try search.send(.select(list: "results", row: "3"))
    #expect(services.stored["favourites"] == "3")
    #expect(services.notices == ["positive: ★ Teapot is now a favourite."])
    #expect(services.used == [.storage, .notifications])
    try search.send(.tap(button: "next"))
    guard case .stack(_, let children)? = search.tree else { throw HarnessError(message: "no tree") }
    #expect(children.contains(.text("14 products · page 2 of 3", tone: .muted)))
  }

  @Test func dashboardEmbedsItsThreeTabsAndSwitches() async throws {
    let dashboard = try await presented("dashboard:home")
    #expect(
      dashboard.requests == [
        .embed("items:list", slot: "tabs"), .embed("products:search", slot: "tabs"), .embed("feed:home", slot: "tabs"),
      ])
    try dashboard.send(.tap(button: "tab.feed"))
    #expect(dashboard.requests.last == .showChild(2, slot: "tabs"))
  }

  @Test func feedEmbedsTheWalletAndMasksIt() async throws {
    let feed = try await presented("feed:home", ["style": .string("compact")])
    #expect(feed.requests == [.embed("wallet:preview", slot: "wallet")])
    try feed.send(.tap(button: "mask"))
    #expect(feed.requests.last == .send(Message("setMasked", ["masked": .bool(true)]), slot: "wallet"))
    try feed.receive(
      Message("balanceChanged", ["balance": .int(80)]), from: .child(slot: "wallet", urn: "wallet:preview"))
    #expect(feed.services.notices == ["positive: Wallet balance is now €80."])
  }

  @Test func walletAddsThePickedAmountAndReportsTheBalance() async throws {
    let wallet = try await presented("wallet:preview")
    try wallet.send(.tap(button: "topUp"))
    #expect(wallet.requests == [.present("wallet:topup")])
    try wallet.receive(Message("picked", ["amount": .int(20)]), from: .opened(urn: "wallet:topup"))
    #expect(wallet.outputs == [Message("balanceChanged", ["balance": .int(70)])])
    #expect(wallet.services.stored["balance"] == "70")
    let picker = try await presented("wallet:topup")
    try picker.send(.select(list: "amounts", row: "50"))
    #expect(picker.outputs == [Message("picked", ["amount": .int(50)])])
    #expect(picker.requests == [.dismiss])
  }

  @Test func profileReadsMembershipOffTheClock() async throws {
    let profile = try await presented("profile:{userID}", ["userID": .string("grace")])
    guard case .stack(_, let children)? = profile.tree else { throw HarnessError(message: "no tree") }
    #expect(children.contains(.text("Member for 83 days")))
    #expect(profile.services.used == [.clock])
  }

  @Test func harnessRefusesWhatTheScreenDoesNotOffer() async throws {
    let list = try await presented("items:list", services: withItems().0)
    #expect(throws: HarnessError(message: "there is no button 'nope' on this screen; buttons: deleteAll")) {
      try list.send(.tap(button: "nope"))
    }
    let detail = try await presented("items:detail:{itemID}", ["itemID": .int(1)], services: withItems().0)
    #expect(
      throws: HarnessError(
        message: "the module takes no messages: none of its presenter, interactor or view is a MessageReceiver")
    ) {
      try detail.receive(Message("x"), from: .parent(urn: "p"))
    }
    #expect(list.tearDown().isEmpty)
    #expect(list.lifecycle == [.attach, .appear, .disappear, .detach])
  }
}

/// The items a fake items service holds: the ItemsList plugin's four.
@MainActor
final class FakeItems {
  var items = [
    Item(id: 1, name: "Buy milk", enabled: true, date: Date(timeIntervalSince1970: 1_767_398_400)),
    Item(id: 2, name: "Write the contract", enabled: true, date: Date(timeIntervalSince1970: 1_771_027_200)),
    Item(id: 3, name: "Water the plants", enabled: false, date: Date(timeIntervalSince1970: 1_772_323_200)),
    Item(id: 4, name: "Book the dentist", enabled: false, date: Date(timeIntervalSince1970: 1_776_816_000)),
  ]
}
