import Testing
import ViperKit

@testable import VivariumApp
@testable import VivariumRuntime

/// Children in slots: embedding, slot rules, tabs and stacks, lifecycle order.
@Suite("Composing modules")
@MainActor
struct CompositionTests {
  let host: ProbeHost
  var recorder: ProbeRecorder { host.recorder }
  var runtime: HostRuntime { host.runtime }

  init() throws {
    host = try ProbeHost()
  }

  private func asParent(_ request: (any AppRouter) -> Void) throws {
    try host.request(from: "probe:parent", request)
  }

  @Test func lifecycleReachesChildrenInOrder() async throws {
    try await runtime.open("probe:parent")
    try asParent { router in
      router.embed("probe:child:1", in: "main")
      router.embed("probe:child:2", in: "main")
    }
    #expect(
      recorder.log == [
        "probe:parent:attach", "probe:parent:appear",
        "probe:child:1:attach", "probe:child:1:appear",
        "probe:child:2:attach", "probe:child:2:appear",
      ])
    recorder.clear()
    runtime.shutdown()
    #expect(
      recorder.log == [
        "probe:child:2:disappear", "probe:child:1:disappear", "probe:parent:disappear",
        "probe:child:2:detach", "probe:child:1:detach", "probe:parent:detach",
      ])
  }

  @Test func tabsKeepEveryChildButShowOne() async throws {
    try await runtime.open("probe:parent")
    try asParent { router in
      router.embed("probe:child:1", in: "tabs")
      router.embed("probe:child:2", in: "tabs")
    }
    let tabs = try #require(runtime.top?.slots.first { $0.spec.name == "tabs" })
    #expect(tabs.children.map(\.urn) == ["probe:child:1", "probe:child:2"])
    #expect(tabs.visibleChildren.map(\.urn) == ["probe:child:1"])
    #expect(!recorder.log.contains("probe:child:2:appear"))
    recorder.clear()
    try asParent { $0.showChild(at: 1, in: "tabs") }
    #expect(recorder.log == ["probe:child:1:disappear", "probe:child:2:appear"])
    let screen = try #require(runtime.screen())
    #expect(screen.slots.first { $0.name == "tabs" }?.children.map(\.urn) == ["probe:child:2"])
  }

  @Test func singleSlotReplacesItsChildAndReleasesTheOldOne() async throws {
    try await runtime.open("probe:parent")
    try asParent { $0.embed("probe:child:1", in: "one") }
    let first = try #require(runtime.top?.allChildren.first)
    try asParent { $0.embed("probe:child:2", in: "one") }
    #expect(runtime.top?.allChildren.map(\.urn) == ["probe:child:2"])
    #expect(first.isDetached)
    #expect(first.roles.allSatisfy { !$0.isAlive })
  }

  @Test func slotRefusesURNsItDoesNotAccept() async throws {
    try await runtime.open("probe:parent")
    try asParent { $0.embed("probe:parent", in: "main") }
    let problems = runtime.takeProblems()
    #expect(problems.count == 1)
    let problem = try #require(problems.first)
    #expect(problem.cause == .notFound)
    // The URN refused, the slot, and the pattern it accepts.
    #expect(
      ["'probe:parent'", "'main'", "probe:child:{n}"].allSatisfy(problem.message.contains), "\(problem.message)")
    #expect(runtime.top?.allChildren.isEmpty == true)
  }

  @Test func unknownSlotIsNamed() async throws {
    try await runtime.open("probe:parent")
    try asParent { $0.embed("probe:child:1", in: "sidebar") }
    let problem = try #require(runtime.takeProblems().first)
    #expect(problem.cause == .notFound)
    // The slot asked for, and the slots there are.
    #expect(problem.message.contains("'sidebar'") && problem.message.contains("main, tabs, one"), "\(problem.message)")
  }

  @Test func emptyingASlotDetachesAndReleasesItsChildren() async throws {
    try await runtime.open("probe:parent")
    try asParent { router in
      router.embed("probe:child:1", in: "main")
      router.embed("probe:child:2", in: "main")
    }
    let children = try #require(runtime.top?.allChildren)
    try asParent { $0.removeChildren(in: "main") }
    #expect(runtime.top?.allChildren.isEmpty == true)
    #expect(children.allSatisfy { $0.lifecycle.last == .detach })
    #expect(children.flatMap(\.roles).allSatisfy { !$0.isAlive })
  }

  @Test func eventsInAChildsPartOfTheScreenGoToTheChild() async throws {
    try await runtime.open("probe:parent")
    try asParent { router in
      router.embed("probe:child:1", in: "main")
      router.embed("probe:child:2", in: "main")
      router.embed("probe:child:3", in: "one")
    }
    try runtime.send(.tap(button: "main.1/ok"))
    try runtime.send(.tap(button: "one/ok"))
    try runtime.send(.tap(button: "ok"))
    #expect(
      recorder.log.suffix(3) == [
        "probe:child:2:tap(button: \"ok\")", "probe:child:3:tap(button: \"ok\")", "probe:parent:tap(button: \"ok\")",
      ])
    #expect {
      try runtime.send(.tap(button: "main/ok"))
    } throws: { error in
      // The slot, and the addresses of its children.
      let message = (error as? ViewEventError)?.message ?? ""
      return ["'main'", "main.0/", "main.1/"].allSatisfy(message.contains)
    }
  }

  @Test func aRequestOfAModuleDetachedBeforeItRunsIsDroppedAndReported() async throws {
    try await runtime.open("probe:parent")
    let parent = try #require(runtime.top)
    recorder.clear()
    try asParent { router in
      router.replace("probe:child:9")
      router.embed("probe:child:1", in: "main")
    }
    #expect(runtime.layers.map { $0.map(\.urn) } == [["probe:child:9"]])
    #expect(!recorder.log.contains("probe:child:1:attach"))
    #expect(parent.isDetached && parent.allChildren.isEmpty)
    #expect(
      runtime.takeProblems() == [
        HostProblem(
          module: "probe:parent",
          message:
            "embed 'probe:child:1' in slot 'main' was dropped: the module was detached before its request ran")
      ])
  }

  @Test func everyKindOfRequestOfADetachedModuleIsDropped() async throws {
    try await runtime.open("probe:parent")
    try asParent { $0.embed("probe:child:1", in: "main") }
    let parent = try host.context("probe:parent")
    let child = try host.context("probe:child:1")
    recorder.clear()
    // All queued in one call, before the first of them detaches the parent and its child.
    parent.router.replace("probe:child:9")
    parent.router.push("probe:child:2")
    parent.router.present("probe:child:3")
    parent.router.replace("probe:child:4")
    parent.router.pop()
    parent.router.popToRoot()
    parent.router.dismiss()
    parent.router.removeChildren(in: "main")
    parent.router.showChild(at: 0, in: "tabs")
    parent.messages.send(Message("ping"), toSlot: "main")
    child.messages.emit(Message("done", ["code": .int(1)]))
    runtime.drain()
    #expect(runtime.layers.map { $0.map(\.urn) } == [["probe:child:9"]])
    #expect(
      recorder.log == [
        "probe:child:9:attach", "probe:child:1:disappear", "probe:parent:disappear", "probe:child:9:appear",
        "probe:child:1:detach", "probe:parent:detach",
      ])
    let dropped = " was dropped: the module was detached before its request ran"
    #expect(
      runtime.takeProblems().map(\.description) == [
        "probe:parent: push 'probe:child:2'\(dropped)",
        "probe:parent: present 'probe:child:3'\(dropped)",
        "probe:parent: replace with 'probe:child:4'\(dropped)",
        "probe:parent: pop\(dropped)",
        "probe:parent: pop to root\(dropped)",
        "probe:parent: dismiss\(dropped)",
        "probe:parent: empty slot 'main'\(dropped)",
        "probe:parent: show child 0 of slot 'tabs'\(dropped)",
        "probe:parent: send 'ping' to slot 'main'\(dropped)",
        "probe:child:1: emit 'done'\(dropped)",
      ])
  }
}

/// Outputs to the owner, inputs to children, each checked against contracts.
@Suite("Messages between modules")
@MainActor
struct MessageTests {
  let host: ProbeHost
  var recorder: ProbeRecorder { host.recorder }
  var runtime: HostRuntime { host.runtime }

  init() async throws {
    host = try ProbeHost()
    try await host.runtime.open("probe:parent")
    try host.request(from: "probe:parent") { $0.embed("probe:child:1", in: "main") }
    host.recorder.clear()
  }

  @Test func declaredOutputReachesTheParent() throws {
    try host.message(from: "probe:child:1") { $0.emit(Message("done", ["code": .int(7)])) }
    #expect(recorder.log == ["probe:parent<-done(code: 7)"])
    #expect(runtime.takeProblems().isEmpty)
  }

  @Test func undeclaredOutputIsRefusedNamingModuleAndMessage() throws {
    try host.message(from: "probe:child:1") { $0.emit(Message("finished")) }
    #expect(recorder.log.isEmpty)
    let problem = try #require(runtime.takeProblems().first)
    #expect(problem.module == "probe:child:1")
    #expect(problem.message.contains("'finished'"), "the output: \(problem.message)")
  }

  @Test func outputWithWrongFieldsIsRefused() throws {
    try host.message(from: "probe:child:1") { $0.emit(Message("done", ["code": .string("seven")])) }
    #expect(recorder.log.isEmpty)
    // The output, the field, the type it must be, and what it got.
    let message = try #require(runtime.takeProblems().first?.message)
    #expect(["'done'", "'code'", "int", "seven"].allSatisfy(message.contains), "\(message)")
  }

  @Test func declaredInputReachesTheChild() throws {
    try host.message(from: "probe:parent") { $0.send(Message("ping"), toSlot: "main") }
    #expect(recorder.log == ["probe:child:1<-ping"])
  }

  @Test func undeclaredInputIsRefused() throws {
    try host.message(from: "probe:parent") { $0.send(Message("reset"), toSlot: "main") }
    #expect(recorder.log.isEmpty)
    let problem = try #require(runtime.takeProblems().first)
    #expect(problem.module == "probe:parent")
    #expect(
      problem.message.contains(
        "sent 'reset' to probe:child:1 (probe.so) in slot 'main', which does not declare it as an input"))
  }

  @Test func resultOfAPresentedModuleReturnsToItsOpener() throws {
    try host.request(from: "probe:parent") { $0.present("probe:child:9") }
    #expect(runtime.layers.map { $0.map(\.urn) } == [["probe:parent"], ["probe:child:9"]])
    let picker = try #require(recorder.context("probe:child:9"))
    picker.messages.emit(Message("done", ["code": .int(1)]))
    picker.router.dismiss()
    runtime.drain()
    #expect(recorder.log.contains("probe:parent<-done(code: 1)"))
    #expect(runtime.layers.map { $0.map(\.urn) } == [["probe:parent"]])
  }
}
