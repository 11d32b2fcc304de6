import Testing
import ViperKit
import VivariumRuntime

@Suite("Deep links")
@MainActor
struct DeepLinkTests {
  let runtime: HostRuntime

  init() throws {
    runtime = HostRuntime(catalog: BuildProducts.demoCatalog, services: try TestServices.make())
  }

  @Test func rebuildsContainerSelectedTabAndPushedDetail() async throws {
    try await runtime.open("dashboard:home/feed:home/wallet:topup")
    #expect(
      runtime.layers.map { $0.map(\.urn) } == [["dashboard:home"], ["wallet:topup"]],
      "the wallet, shown in the feed tab, declares that it presents the top-up")
    #expect(runtime.top?.opener?.urn == "wallet:preview")
    try await runtime.open("items:list/items:detail:3/wallet:topup")
    #expect(
      runtime.layers.map { $0.map(\.urn) } == [["items:list", "items:detail:3", "wallet:topup"]],
      "no module shown declares it presents the top-up")
    try await runtime.open("dashboard:home/products:search")
    #expect(runtime.screen()?.slots.first?.children.first?.urn == "products:search")
    try await runtime.open("vivarium-demo://dashboard:home/items:list/items:detail:3", scheme: "vivarium-demo")
    #expect(runtime.layers.map { $0.map(\.urn) } == [["dashboard:home", "items:detail:3"]])
    #expect(runtime.top?.isAppeared == true)
    #expect(runtime.layers[0][0].isAppeared == false)
  }

  @Test func aFailingSegmentIsNamedAndTheScreenStaysAsItWas() async throws {
    try await runtime.open("items:list")
    let before = try #require(runtime.top)
    await #expect {
      try await runtime.open("dashboard:home/items:list/items:detail:x")
    } throws: { error in
      // Which segment failed, and why.
      let error = error as? ResolveError
      return error?.kind == .wrongType
        && ["segment 3", "'items:detail:x'", "'itemID'"].allSatisfy { error?.message.contains($0) == true }
    }
    #expect(runtime.top === before)
    #expect(before.isAppeared)
    #expect(runtime.layers.map { $0.map(\.urn) } == [["items:list"]])
  }

  @Test(
    "malformed deep links are refused",
    arguments: [
      ("a:b//c:d", "segment 2 of 'a:b//c:d' is empty"),
      ("other://items:list", "the link's scheme is 'other', this app's is 'vivarium-demo'"),
    ])
  func malformed(link: String, message: String) async {
    await #expect {
      try await runtime.open(link, scheme: "vivarium-demo")
    } throws: { error in
      (error as? ResolveError)?.message.contains(message) == true
    }
  }

  @Test func modulesBuiltForAFailedLinkAreDetached() async throws {
    let probes = try ProbeHost()
    await #expect(throws: ResolveError.self) {
      try await probes.runtime.open("probe:parent/probe:child:1/nothing:here")
    }
    #expect(probes.runtime.layers.isEmpty)
    #expect(
      probes.recorder.log == [
        "probe:parent:attach", "probe:child:1:attach", "probe:child:1:detach", "probe:parent:detach",
      ])
  }

  @Test func aLinkOfMoreSegmentsThanTheLimitIsRefusedBeforeBuildingAnything() async throws {
    let probes = try ProbeHost()
    let link = (1...1_001).map { "probe:child:\($0)" }.joined(separator: "/")
    await #expect {
      try await probes.runtime.open(link)
    } throws: { error in
      // How many it has, and the limit.
      let message = (error as? ResolveError)?.message ?? ""
      return message.contains("1,001") && message.contains("1,000")
    }
    #expect(probes.recorder.log.isEmpty)
  }

  @Test func aLinkOfTheMostSegmentsAllowedIsBuilt() async throws {
    let probes = try ProbeHost()
    try await probes.runtime.open((1...1_000).map { "probe:child:\($0)" }.joined(separator: "/"))
    #expect(probes.runtime.layers.map(\.count) == [1_000])
    #expect(probes.runtime.top?.urn == "probe:child:1000")
    #expect(probes.runtime.top?.isAppeared == true)
  }

  @Test func aLongSegmentIsCutShortInTheError() async throws {
    let probes = try ProbeHost()
    let long = "probe:child:" + String(repeating: "9", count: 10_000)
    await #expect {
      try await probes.runtime.open("probe:parent//" + long)
    } throws: { error in
      let message = (error as? ResolveError)?.message ?? ""
      return message.contains("'probe:parent//probe:child:999") && message.count < 200
    }
  }
}
