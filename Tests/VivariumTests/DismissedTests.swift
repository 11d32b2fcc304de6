import Testing
import ViperKit

@testable import VivariumApp
@testable import VivariumRuntime

/// The opener of a modal hears `dismissed` when the modal closes without
/// having answered it, however it closes, and only then.
@Suite("Dismissed modals")
@MainActor
struct DismissedTests {
  let host: ProbeHost
  var runtime: HostRuntime { host.runtime }
  var received: [String] { host.recorder.log.filter { $0.contains("<-") } }

  init() async throws {
    host = try ProbeHost()
    try await host.runtime.open("probe:parent")
    try host.request(from: "probe:parent") { $0.present("probe:child:1") }
  }

  @Test func theModalsOwnDismissTellsItsOpenerFromTheModal() throws {
    try host.request(from: "probe:child:1") { $0.push("probe:child:2") }
    try host.request(from: "probe:child:2") { $0.dismiss() }
    #expect(received == ["probe:parent<-dismissed"])
    #expect(runtime.takeProblems().isEmpty)
  }

  @Test func thePersonsBackAndDismissTellTheOpenerToo() async throws {
    try await runtime.back()
    try host.request(from: "probe:parent") { $0.present("probe:child:2") }
    try await runtime.dismissModal()
    #expect(received == ["probe:parent<-dismissed", "probe:parent<-dismissed"])
  }

  @Test func aModalThatAnsweredClosesWithoutIt() throws {
    try host.message(from: "probe:child:1") { $0.emit(Message("done", ["code": .int(1)])) }
    try host.request(from: "probe:child:1") { $0.dismiss() }
    #expect(received == ["probe:parent<-done(code: 1)"])
  }

  @Test func aPoppedScreenAndAModalClosedWithItsOpenerTellNobody() async throws {
    try host.request(from: "probe:child:1") { $0.push("probe:child:2") }
    try host.request(from: "probe:child:2") { $0.present("probe:child:3") }
    try host.request(from: "probe:child:3") { $0.pop() }
    #expect(received == ["probe:child:2<-dismissed"])
    try host.request(from: "probe:child:2") { $0.pop() }
    try host.request(from: "probe:child:1") { $0.present("probe:child:4") }
    try await runtime.open("probe:parent/probe:child:5")
    #expect(received == ["probe:child:2<-dismissed"], "a pop or a new link replacing the opener tells nobody")
  }

  @Test func theMessageReadsAsTheSDKsValueWithoutAString() {
    let message = Message(Dismissed())
    #expect(Dismissed(message) != nil)
    #expect(Dismissed(Message("picked", ["amount": .int(1)])) == nil)
    #expect(message.fields.isEmpty)
  }

  @Test func theWalletSaysTheTopUpWasCancelled() async throws {
    let runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
    try await runtime.open("feed:home")
    try runtime.send(.tap(button: "wallet/topUp"))
    try runtime.send(.tap(button: "cancel"))
    let wallet = try #require(runtime.top?.allChildren.first)
    #expect(wallet.tree?.contains(.text("(top-up cancelled)")) == true)
    try runtime.send(.tap(button: "wallet/topUp"))
    try runtime.send(.select(list: "amounts", row: "10"))
    #expect(wallet.tree?.contains(.text("(top-up cancelled)")) == false)
  }
}
