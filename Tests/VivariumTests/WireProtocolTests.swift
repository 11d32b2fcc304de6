import Foundation
import Testing
import ViperKit

@testable import ViperKitTestKit
@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumTerminal
@testable import VivariumTools
@testable import VivariumWire

/// The protocol between the host and a plugin process: every message comes
/// back as it was, through frames however the stream is cut; a message of
/// one direction does not decode as the other's; any other bytes are a
/// ``WireError`` saying what is wrong, never a trap, and whatever decodes
/// encodes to itself again.
@Suite("Plugin process protocol")
struct WireProtocolTests {
  /// Mutated frames decoded in the fuzz test.
  static let fuzzedFrameCount = 100_000

  static let tones: [Tone] = [.normal, .muted, .info, .positive, .warning, .negative]

  static let roles = [
    WireRole(role: .view, typeName: "ItemsView"), WireRole(role: .presenter, typeName: "ItemsPresenter"),
    WireRole(role: .interactor, typeName: "ItemsInteractor"), WireRole(role: .router, typeName: "ItemsRouter"),
  ]

  /// Two real contracts: one using every part, one the least there is.
  static let contracts = [
    Contract(
      urn: "items:list", version: 3, summary: "The items, newest first.",
      arguments: [
        .optional("filter", .string, default: .string("all"), "Which items."),
        .choice("layout", ["rows", "cards"], "How they are laid out."),
        .optional("compact", .bool, default: .bool(false), "Dense rows."),
        ArgumentSpec(
          name: "zoom", type: .double, required: false, defaultValue: .double(1.5), description: "Zoom.",
          choices: [.double(1.5), .double(-2)]),
      ],
      inputs: [MessageSpec(name: "refresh", description: "Reload.")],
      outputs: [
        MessageSpec(name: "picked", fields: ["itemID": .int, "title": .string], description: "A row was picked.")
      ],
      slots: [SlotSpec(name: "detail", accepts: ["items:detail:{itemID}"], kind: .tabs, description: "The item.")],
      services: [.storage, .settings],
      guards: [RouteGuard(requires: "session.user", otherwise: "login:form", reason: "Sign in first.")],
      opens: [
        .push(
          "items:detail:{itemID}", arguments: ["itemID": .int, "compact": .bool],
          expects: [MessageSpec(name: "deleted", fields: ["itemID": .int], description: "")]),
        .present("items:new"), .replace("login:form"),
      ],
      requires: [
        ServiceRequirement(service: "items", versions: VersionRange("1.2"..<"2"), isOptional: false),
        ServiceRequirement(service: "", versions: VersionRange("0"..<"0.0.1"), isOptional: true),
      ]),
    Contract(urn: "items:detail:{itemID}", summary: "One item.", arguments: [.required("itemID", .int, "The item.")]),
  ]

  /// Arguments of all four kinds, with the extremes of each.
  static let arguments: [String: ArgumentValue] = [
    "name": .string("Ada Lovelace ✓"), "": .string(""), "count": .int(-42), "max": .int(.max), "min": .int(.min),
    "on": .bool(true), "off": .bool(false), "ratio": .double(0.1), "tiny": .double(.leastNonzeroMagnitude),
    "low": .double(-.infinity),
  ]

  static let message = Message(
    "picked", ["itemID": .int(7), "enabled": .bool(true), "score": .double(2.5), "title": .string("日本")])

  /// Every kind of element, stacks three deep, rows with and without markers.
  static let tree: ViewNode = {
    var children: [ViewNode] = [
      .heading("Items"),
      .notice(.info, "Synced"),
      .stack(
        .horizontal,
        [
          .button(id: "add", title: "Add"),
          .stack(.vertical, [.slot("detail"), .stack(.horizontal, [])]),
        ]),
      .list(
        id: "items",
        rows: [
          ListRow(id: "1", title: "One", detail: "today", marker: Marker(.positive, "enabled")),
          ListRow(id: "2", title: "Two"),
          ListRow(id: "3", title: "Three", detail: "yesterday", marker: Marker(.negative, "disabled")),
        ]),
      .list(id: "empty", rows: []),
      .field(id: "name", label: "Name", value: "Ada", placeholder: "Your name"),
      .field(id: "note", label: "", value: "", placeholder: ""),
      .secretField(id: "password", label: "Password", length: 8, placeholder: ""),
      .secretField(id: "pin", label: "PIN", length: 0, placeholder: "4 digits"),
    ]
    children += tones.map { ViewNode.text("Tone", tone: $0) }
    return .stack(.vertical, children)
  }()

  static let requests: [HostRequest] = [
    .push("items:detail:7"), .present("login:form"), .replace("app:main"), .pop, .popToRoot, .dismiss,
    .embed("items:detail:7", slot: "detail"), .removeChildren(slot: "detail"), .showChild(2, slot: "tabs"),
    .showChild(-1, slot: ""), .emit(message), .emit(Message("refresh")), .send(message, slot: "detail"),
  ]

  static let serviceCalls: [HostServiceCall] = {
    var calls: [HostServiceCall] = [
      .storageValue(key: "draft"), .storageSet(key: "draft", value: "hello"), .storageSet(key: "draft", value: nil),
      .storageKeys, .settingValue(key: "theme"), .settingSet(key: "theme", value: .string("dark")),
      .settingSet(key: "zoom", value: .double(2)), .settingSet(key: "theme", value: nil),
      .alert(title: "Delete?", message: "This cannot be undone."), .now,
    ]
    calls += [LogLevel.debug, .info, .warning, .error].map { HostServiceCall.log($0, "line") }
    calls += tones.map { HostServiceCall.notice("Saved", $0) }
    return calls
  }()

  /// Every host service has its calls on the wire, but http, which has
  /// messages of its own: a service added without them fails here.
  @Test func everyHostServiceButHTTPIsCalledWithHostServiceCalls() {
    #expect(Set(Self.serviceCalls.map(\.service)) == Set(Services.Name.allCases).subtracting([.http]))
  }

  static let answers: [WireAnswer] = [
    .none, .string(nil), .string("stored"), .strings([]), .strings(["a", "b"]), .value(nil), .value(.string("v")),
    .value(.int(1)), .value(.bool(true)), .value(.double(1e300)), .number(1_700_000_000.25), .failed("disk full"),
  ]

  /// A business service's request, its outcomes, and an http request.
  static let forecast = ServiceValue.record([
    "city": .string("Zürich"), "celsius": .double(-2.5), "hours": .list([.int(9), .int(12)]), "alert": .null,
    "clear": .bool(false),
  ])
  static let serviceRequest = ServiceRequest(service: "weather", operation: "forecast", payload: forecast, deadline: 5)
  static let emptyRequest = ServiceRequest(service: "", operation: "", payload: .record([:]), deadline: .infinity)
  static let outcomes: [ServiceOutcome] = [
    .response(forecast), .response(.list([])), .failure(.record(["why": .string("no such city")])),
    .error(ServiceCallError(.deadline, service: "weather", operation: "forecast", reason: "no answer in 5 s")),
  ]

  /// A host message of every case, most of them several times.
  static let hostSamples: [HostMessage] = {
    var samples: [HostMessage] = [
      .build(
        call: 1, module: 2, factory: 0, urn: "items:list", arguments: arguments, services: [.storage],
        restoring: #"{"draft":"é"}"#),
      .build(call: .max, module: .max, factory: .max, urn: "", arguments: [:], services: [], restoring: ""),
      .build(
        call: 0, module: 0, factory: .min, urn: "x", arguments: ["only": .double(-0.0)],
        services: Services.Name.allCases,
        restoring: nil),
    ]
    samples += LifecycleEvent.allCases.map { HostMessage.lifecycle(call: 3, module: 2, $0) }
    let events: [ViewEvent] = [
      .tap(button: "add"), .select(list: "items", row: "7"), .type(field: "name", text: "é\n"),
      .command(id: "refresh"),
    ]
    samples += events.map { HostMessage.event(call: 4, module: 2, $0) }
    let origins: [MessageOrigin] = [
      .parent(urn: "app:main"), .child(slot: "detail", urn: "items:detail:7"), .opened(urn: "login:form"),
    ]
    samples += origins.map { HostMessage.message(call: 5, module: 2, message, $0) }
    samples.append(.message(call: 6, module: 2, Message("refresh"), .parent(urn: "")))
    samples += answers.map { HostMessage.answer(call: 7, $0) }
    samples += outcomes.map { HostMessage.answer(call: 26, .outcome($0)) }
    samples += [
      .woke(sleep: 8, cancelled: false), .woke(sleep: 9, cancelled: true), .mayLeave(call: 21, module: 2),
      .cancel(call: 21), .storeCopy(.storage, ["note": .string("milk")]), .storeCopy(.settings, [:]),
      .storeChanged(.settings, key: "items.1.enabled", .bool(false)), .storeChanged(.storage, key: "note", nil),
      .clock(now: nil), .clock(now: 1_795_262_400.25), .clock(now: -0.0), .answerWithin(seconds: 2.5),
      .callProvider(call: 28, serviceRequest), .callProvider(call: .max, emptyRequest),
      .answer(call: 29, .httpResponse(HTTPResponse(status: 200, headers: ["content-type": "text/plain"], body: [65]))),
      .answer(call: 30, .httpFailed(HTTPError(.undeclaredHost, url: "https://evil.example", reason: "not declared"))),
      .deliver(topic: "wallet.balance-changed", .record(["balance": .int(70)])), .deliver(topic: "", .null),
    ]
    return samples
  }()

  /// Diffs of ``tree`` with every kind of piece, and one of a whole tree.
  static let drawnChanges: [ViewTreeDiff] = {
    guard case .stack(let axis, var children) = tree, case .stack(let inner, var row) = children[2],
      case .list(let id, var rows) = children[3]
    else { preconditionFailure("the sample tree changed") }
    row.insert(.button(id: "remove", title: "Remove"), at: 1)
    rows[1].title = "Two, changed"
    rows.remove(at: 2)
    children[2] = .stack(inner, row)
    children[3] = .list(id: id, rows: rows + [ListRow(id: "4", title: "Four")])
    children.insert(.text("New"), at: 0)
    return [
      ViewTreeDiff.diff(from: tree, to: .stack(axis, children)),
      ViewTreeDiff(base: 0, root: .node(.heading("Whole"))),
      ViewTreeDiff(base: .max, root: .children([])),
      ViewTreeDiff(base: 1, root: .rows([.kept(from: 0, count: 1), .inserted([])])),
    ]
  }()

  /// A plugin message of every case, most of them several times.
  static let pluginSamples: [PluginMessage] = {
    var samples: [PluginMessage] = [
      .ready(
        version: WireProtocol.version, name: "ItemsList", sdkVersion: "2.1.0", contracts: contracts,
        pluginVersion: "1.2.3",
        provides: [
          ServiceProvision(
            service: "weather", version: "1.0",
            requires: [ServiceRequirement(service: "api", versions: VersionRange("1"..<"2"), isOptional: true)])
        ], hosts: ["api.example.com", "*.example.org"], publishes: ["a.b"], subscribes: ["a.b", "c"]),
      .ready(version: -1, name: "", sdkVersion: "", contracts: [], pluginVersion: "0", provides: [], hosts: []),
      .refused(kind: "symbol", reasons: ["no vivarium_plugin_entry", "built with Swift 5.10"]),
      .refused(kind: "", reasons: []),
      .mapped,
      .done(call: 10), .done(call: 300),
      .built(call: 11, roles: roles, receives: true, guardsLeaving: false, restoreFailure: nil),
      .built(call: 12, roles: [], receives: false, guardsLeaving: true, restoreFailure: "'draft' is missing"),
      .leaveDecision(call: 21, .leave), .leaveDecision(call: 22, .stay(reason: "save first")),
      .leaveDecision(call: 23, .ask(question: "Discard?", confirm: "Discard", cancel: "Keep editing")),
      .openRefused(call: 24, .refuse(reason: "no item 99")),
      .openRefused(call: 25, .redirect(urn: "login:form", reason: "sign in first")),
      .restorationState(module: 2, state: #"{"page":3}"#, failure: nil),
      .restorationState(module: .max, state: nil, failure: "too big"),
      .restorationState(module: 0, state: nil, failure: nil),
      .buildFailed(call: 13, message: "no item 7"), .draw(module: 2, tree), .draw(module: 3, .text("")),
    ]
    samples += drawnChanges.map { PluginMessage.drawChanges(module: 2, $0) }
    samples += requests.map { PluginMessage.request(module: 2, $0) }
    samples += serviceCalls.map { PluginMessage.callHostService(call: 14, module: 2, $0) }
    samples += [
      .callHostService(call: 0, module: 2, .now), .workStarted(module: 2, work: 15, name: "load"),
      .workEnded(work: 15, .finished), .workEnded(work: 16, .failed("timed out")), .workEnded(work: 17, .cancelled),
      .sleep(work: 0, sleep: 18, seconds: 0.25, waiting: false),
      .sleep(work: 19, sleep: 20, seconds: .infinity, waiting: true),
      .cancelSleep(sleep: 18), .leaked(module: 2, roles: roles), .leaked(module: 3, roles: []),
      .callBusinessService(call: 26, module: 2, serviceRequest),
      .callBusinessService(call: 27, module: 0, emptyRequest),
      .cancelServiceCall(call: 26),
    ]
    samples += outcomes.map { PluginMessage.providerAnswered(call: 28, $0) }
    let get = HTTPRequest("https://api.example.com/forecast?city=Oslo", headers: ["accept": "application/json"])
    samples += [
      .sendHTTP(call: 29, module: 2, get),
      .sendHTTP(call: 30, module: 0, HTTPRequest("", method: "POST", body: [0, 255])),
      .publish(module: 2, topic: "wallet.balance-changed", .record(["balance": .int(70)])),
      .eventProblem(module: 2, topic: "t", .undeclaredSubscription),
      .eventProblem(module: 0, topic: "t", .unreadable("keyNotFound balance")),
      .eventProblem(module: 0, topic: "", .dropped(queueLimit: 256)),
    ]
    return samples
  }()

  /// Every sample, of both directions.
  static let samples: [Sample] = hostSamples.map(Sample.toPlugin) + pluginSamples.map(Sample.toHost)

  /// The samples' encodings.
  static let encodings: [[UInt8]] = samples.map { try! $0.encoded() }

  /// A few messages for the stream tests.
  static let streamSamples: [Sample] = [
    .toHost(.done(call: 1)),
    .toHost(
      .draw(
        module: 2,
        .stack(
          .horizontal,
          [.heading("A"), .list(id: "l", rows: [ListRow(id: "1", title: "One", marker: Marker(.info, "new"))])]
        ))),
    .toPlugin(
      .build(
        call: 300, module: 70_000, factory: 1, urn: "items:detail:7",
        arguments: ["itemID": .int(7), "z": .double(1.5)], services: [], restoring: "{}")),
    .toPlugin(.woke(sleep: 3, cancelled: true)),
    .toHost(.workEnded(work: 4, .failed("timed out"))),
  ]

  // Hand-made values of the wire's codec (``WireTag``).
  static func text(_ value: String) -> [UInt8] { [6] + varint(UInt64(value.utf8.count)) + Array(value.utf8) }
  static func unsigned(_ value: UInt64) -> [UInt8] { [4] + varint(value) }
  static func keyed(_ entries: [(String, [UInt8])]) -> [UInt8] {
    [7] + count(entries.count) + entries.flatMap { text($0.0).dropFirst() + $0.1 }
  }
  static func count(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
  static func varint(_ value: UInt64) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.appendVarint(value)
    return bytes
  }

  /// Hand-made bytes that are not a message of the direction they are
  /// read in, and the kind of error they are.
  static let malformed: [(String, Direction, [UInt8], WireError.Kind)] = [
    ("nothing", .toHost, [], .truncated),
    ("an unknown tag", .toHost, [9], .unknownTag),
    ("the last tag byte", .toPlugin, [255], .unknownTag),
    ("a byte left over", .toHost, keyed([("done", keyed([("call", unsigned(1))]))]) + [0], .leftOver),
    ("a key that is not UTF-8", .toHost, [7] + count(1) + [2, 0xC3, 0x28, 0], .notUTF8),
    ("an encoded surrogate", .toHost, [6, 3, 0xED, 0xA0, 0x80], .notUTF8),
    ("an overlong encoding", .toPlugin, [6, 2, 0xC0, 0x80], .notUTF8),
    ("a string longer than the bytes", .toHost, [6, 5, 0x61], .countTooLarge),
    ("a list longer than the bytes", .toHost, [8] + count(100) + [0], .countTooLarge),
    ("the largest count", .toPlugin, [8, 0xFF, 0xFF, 0xFF, 0xFF], .countTooLarge),
    ("the largest string length", .toHost, [6] + [UInt8](repeating: 0xFF, count: 9) + [0x01], .countTooLarge),
    ("a count cut short", .toHost, [8, 1, 0], .truncated),
    ("a number of 11 bytes", .toHost, [4] + [UInt8](repeating: 0x80, count: 10) + [0x01], .numberTooLong),
    ("a tenth byte over 1", .toPlugin, [4] + [UInt8](repeating: 0xFF, count: 9) + [0x02], .numberTooLong),
    ("a number cut short", .toHost, [4, 0x80], .truncated),
    ("a double cut short", .toHost, [5, 0, 0, 1, 2, 3], .truncated),
    ("a key twice", .toHost, keyed([("a", [0]), ("a", [0])]), .duplicateKey),
    ("a key twice, composed and decomposed", .toHost, keyed([("\u{E9}", [0]), ("e\u{301}", [0])]), .duplicateKey),
    ("a case no message has", .toHost, keyed([("nope", keyed([]))]), .mismatch),
    ("a case no host message has", .toPlugin, keyed([("nope", keyed([]))]), .mismatch),
    ("a call number of 2^32", .toHost, keyed([("done", keyed([("call", unsigned(1 << 32))]))]), .mismatch),
    ("a signed call number", .toHost, keyed([("done", keyed([("call", [3, 2])]))]), .mismatch),
    ("a flag for a call number", .toHost, keyed([("done", keyed([("call", [2])]))]), .mismatch),
    ("a call number missing", .toHost, keyed([("done", keyed([]))]), .mismatch),
    ("a plugin's answer sent to the plugin", .toPlugin, keyed([("done", keyed([("call", unsigned(1))]))]), .mismatch),
    ("the host's cancel sent to the host", .toHost, keyed([("cancel", keyed([("call", unsigned(1))]))]), .mismatch),
    (
      "a lifecycle event", .toPlugin,
      keyed([("lifecycle", keyed([("call", unsigned(0)), ("module", unsigned(0)), ("_2", text("wake"))]))]), .mismatch
    ),
    (
      "a tone", .toHost,
      keyed([
        (
          "callHostService",
          keyed([
            ("call", unsigned(0)), ("module", unsigned(0)),
            ("_2", keyed([("notice", keyed([("_0", text("")), ("_1", text("loud"))]))])),
          ])
        )
      ]), .mismatch
    ),
    (
      "a view element", .toHost,
      keyed([("draw", keyed([("module", unsigned(0)), ("_1", keyed([("kind", text("table"))]))]))]), .mismatch
    ),
    ("a store", .toPlugin, keyed([("storeCopy", keyed([("_0", unsigned(2)), ("_1", keyed([]))]))]), .mismatch),
  ]

  // MARK: Round trips

  @Test(arguments: samples.indices)
  func eachMessageComesBackAsItWas(index: Int) throws {
    let sample = Self.samples[index]
    #expect(try sample.direction.decode(try sample.encoded()) == sample)
    #expect(try sample.direction.decode(Self.encodings[index]) == sample)
  }

  /// No case is in both directions: a message read on the wrong side of
  /// the socket is refused as what it is, a case that side does not have.
  @Test(arguments: samples.indices)
  func eachMessageIsRefusedTheOtherWay(index: Int) {
    let other: Direction = Self.samples[index].direction == .toHost ? .toPlugin : .toHost
    let error = Self.error(decoding: Self.encodings[index], as: other)
    #expect(error?.kind == .mismatch, "\(Self.samples[index]): \(error?.description ?? "decoded")")
  }

  @Test func theSamplesHoldEveryCase() {
    var found: Set<String> = []
    for sample in Self.hostSamples { Self.collectCases(in: sample, into: &found) }
    for sample in Self.pluginSamples { Self.collectCases(in: sample, into: &found) }
    let expected: [String: String] = [
      "HostMessage":
        "build lifecycle event message mayLeave callProvider cancel answer woke storeCopy storeChanged clock",
      "PluginMessage":
        "mapped ready refused done built buildFailed openRefused leaveDecision providerAnswered draw drawChanges request restorationState workStarted workEnded sleep cancelSleep leaked callHostService callBusinessService sendHTTP cancelServiceCall",
      "WireStore": "storage settings",
      "HostRequest": "push present replace pop popToRoot dismiss embed removeChildren showChild emit send",
      "HostServiceCall": "storageValue storageSet storageKeys settingValue settingSet log notice alert now",
      "WireAnswer": "none string strings value number failed outcome httpResponse httpFailed",
      "WireWorkOutcome": "finished failed cancelled",
      "ViewNode": "text heading list button field secretField stack slot notice",
      "ViewEvent": "tap select type",
      "MessageOrigin": "parent child opened",
      "ArgumentValue": "string int bool double",
      "Tone": "normal muted info positive warning negative",
      "Role": "view presenter interactor router",
      "LifecycleEvent": "attach appear disappear detach",
      "LogLevel": "debug info warning error",
      "Axis": "vertical horizontal",
      "LeaveDecision": "leave stay ask",
      "OpenDecision": "refuse redirect",
      "Change": "node children rows",
      "Piece<ViewNode, Change>": "kept changed inserted",
      "Piece<ListRow, Never>": "kept inserted",
    ]
    let missing = expected.flatMap { type, names in names.split(separator: " ").map { "\(type).\($0)" } }
      .filter { !found.contains($0) }
    #expect(missing.isEmpty, "no sample holds \(missing.sorted())")
  }

  @Test func notANumberComesBackBitForBit() throws {
    let nan = Double(nan: 0x1234, signaling: false)
    let decoded = try PluginMessage.decode(
      try PluginMessage.sleep(work: 1, sleep: 2, seconds: nan, waiting: false).encoded())
    guard case .sleep(let work, let sleep, let seconds, _) = decoded else {
      Issue.record("not a sleep: \(decoded)")
      return
    }
    #expect(work == 1 && sleep == 2)
    #expect(seconds.bitPattern == nan.bitPattern)
  }

  @Test func aFrameIsItsLittleEndianLengthThenThePayload() {
    #expect(WireFrame.frame([]) == [0, 0, 0, 0])
    #expect(WireFrame.frame([7, 8, 9]) == [3, 0, 0, 0, 7, 8, 9])
    let payload = [UInt8](repeating: 0xAB, count: 0x01_02_03)
    #expect(WireFrame.frame(payload).prefix(4) == [0x03, 0x02, 0x01, 0x00])
    #expect(WireFrame.frame(payload).dropFirst(4) == payload[...])
  }

  @Test func framesSplitAtEveryByteAreTheSameMessages() throws {
    let payloads = Self.streamSamples.map { try! $0.encoded() }
    let stream = payloads.flatMap { WireFrame.frame($0) }
    for cut in 0...stream.count {
      var reader = WireFrameReader()
      var received: [[UInt8]] = []
      try Self.feed(stream[..<cut], to: &reader, collecting: &received)
      try Self.feed(stream[cut...], to: &reader, collecting: &received)
      #expect(received == payloads, "cut at \(cut)")
      #expect(reader.pending == 0, "cut at \(cut)")
    }
    var reader = WireFrameReader()
    var received: [[UInt8]] = []
    for index in stream.indices { try Self.feed(stream[index...index], to: &reader, collecting: &received) }
    #expect(received == payloads)
    #expect(try zip(received, Self.streamSamples).map { try $1.direction.decode($0) } == Self.streamSamples)
  }

  @Test func aLargeFrameArrivesWholeOnceItsLastByteDoes() throws {
    let message = PluginMessage.buildFailed(call: 1, message: String(repeating: "é", count: 40_000))
    let stream = WireFrame.frame(try message.encoded())
    var reader = WireFrameReader()
    var received: [[UInt8]] = []
    for start in stride(from: 0, to: stream.count, by: 4_096) {
      #expect(received.isEmpty)
      try Self.feed(stream[start..<min(start + 4_096, stream.count)], to: &reader, collecting: &received)
    }
    #expect(try received.map { try PluginMessage.decode($0) } == [message])
  }

  // MARK: Malformed input

  @Test(arguments: malformed.indices)
  func malformedBytesAreAClearError(index: Int) {
    let (what, direction, bytes, expected) = Self.malformed[index]
    let error = Self.error(decoding: bytes, as: direction)
    #expect(error?.kind == expected, "\(what): \(error?.description ?? "decoded")")
    #expect(error.map { !$0.description.isEmpty } == true)
  }

  @Test(arguments: samples.indices)
  func everyPrefixAndAByteMoreAreErrors(index: Int) {
    let encoded = Self.encodings[index]
    let direction = Self.samples[index].direction
    for length in 0..<encoded.count {
      let error = Self.error(decoding: Array(encoded.prefix(length)), as: direction)
      #expect(
        error?.kind == .truncated || error?.kind == .countTooLarge,
        "the first \(length) of \(encoded.count) bytes: \(error?.description ?? "decoded")")
    }
    let error = Self.error(decoding: encoded + [0], as: direction)
    #expect(error?.kind == .leftOver, "\(String(describing: error))")
  }

  /// A draw's tree takes two containers a level (the node, its children)
  /// and the message two more: trees 64 deep cross, deeper ones are refused
  /// before anything decodes them, however deep.
  @Test func aViewTreeDeeperThanTheLimitIsRefused() throws {
    func tree(depth: Int) -> ViewNode {
      depth == 1 ? .heading("") : .stack(.vertical, [tree(depth: depth - 1)])
    }
    let leaf = try WireEncoder.encode(ViewNode.heading(""))
    // A draw of `depth` nodes, written by hand: stacks of one child each, then a heading.
    let drawPrefix = try PluginMessage.draw(module: 0, .heading("")).encoded().dropLast(leaf.count)
    let stackPrefix = try WireEncoder.encode(ViewNode.stack(.vertical, [.heading("")])).dropLast(leaf.count)
    func draw(depth: Int) -> [UInt8] {
      Array(drawPrefix) + Array([[UInt8]](repeating: Array(stackPrefix), count: depth - 1).joined()) + leaf
    }
    let deepest = PluginMessage.draw(module: 0, tree(depth: 64))
    #expect(try deepest.encoded() == draw(depth: 64))
    #expect(try PluginMessage.decode(draw(depth: 64)) == deepest)
    for depth in [65, 100_000] {
      let error = Self.error(decoding: draw(depth: depth), as: .toHost)
      #expect(error?.kind == .tooDeep, "\(depth): \(String(describing: error))")
    }
  }

  @Test func aFrameOverTheLimitIsRefusedBeforeItsPayload() throws {
    let done = try PluginMessage.done(call: 1).encoded()
    var reader = WireFrameReader()
    var received: [[UInt8]] = []
    let stream = WireFrame.frame(done) + Self.header(WireProtocol.frameLimit + 1)
    let error = Self.error(feeding: stream[...], to: &reader, collecting: &received)
    #expect(error?.kind == .frameTooLarge, "\(String(describing: error))")
    #expect(error?.description.contains("\(WireProtocol.frameLimit + 1)") == true)
    #expect(received == [done])
    #expect(Self.error(feeding: [], to: &reader, collecting: &received)?.kind == .frameTooLarge)
    // The largest length a header can say, with and without its continue bit.
    for header in [UInt32.max, UInt32.max >> 1] {
      var reader = WireFrameReader()
      let error = Self.error(feeding: Self.header(Int(header))[...], to: &reader, collecting: &received)
      #expect(error?.kind == .frameTooLarge, "\(header)")
    }
    // A frame of exactly the limit waits for its payload.
    var waiting = WireFrameReader()
    Self.header(WireProtocol.frameLimit).withUnsafeBytes { waiting.append($0) }
    #expect(try waiting.next() == nil)
    #expect(waiting.pending == 4)
  }

  /// A message over one frame crosses in several, each within the frame
  /// limit, and comes back whole; the limit on a message counts them all.
  @Test func aLargeMessageCrossesInSeveralFrames() throws {
    let message = PluginMessage.buildFailed(
      call: 1, message: String(repeating: "x", count: WireProtocol.frameLimit * 2))
    let payload = try message.encoded()
    let stream = WireFrame.frame(payload)
    #expect(stream.count == payload.count + 3 * 4, "three frames, each with its header")
    var reader = WireFrameReader()
    var received: [[UInt8]] = []
    try Self.feed(stream[...], to: &reader, collecting: &received)
    #expect(received == [payload])
    #expect(try PluginMessage.decode(received[0]) == message)
    #expect(reader.pending == 0)
    // Continued frames past the message limit are refused once they pass it.
    let full = Self.header(WireProtocol.frameLimit | 1 << 31) + [UInt8](repeating: 0, count: WireProtocol.frameLimit)
    var flooded = WireFrameReader()
    var error: WireError?
    for _ in 0...(WireProtocol.messageLimit / WireProtocol.frameLimit) where error == nil {
      error = Self.error(feeding: full[...], to: &flooded, collecting: &received)
    }
    #expect(error?.kind == .messageTooLarge)
    #expect(flooded.pending <= WireProtocol.messageLimit + full.count)
  }

  // MARK: Fuzzing

  @Test func mutatedFramesDecodeOrThrowAndWhatDecodesIsStable() {
    var random = SplitMix64(seed: 0x5749_5245_4655_5A5A)
    var decoded = 0
    var refused = 0
    var batch: [[UInt8]] = []
    for _ in 0..<Self.fuzzedFrameCount {
      let index = Int.random(in: Self.encodings.indices, using: &random)
      var bytes = Self.encodings[index]
      for _ in 0..<Int.random(in: 1...4, using: &random) { Self.mutate(&bytes, using: &random) }
      if let message = try? Self.samples[index].direction.decode(bytes) {
        decoded += 1
        Self.expectStable(message, from: bytes)
      } else {
        refused += 1
      }
      batch.append(bytes)
      if batch.count == 8 {
        Self.expectFramesSurvive(batch, using: &random)
        batch.removeAll(keepingCapacity: true)
      }
    }
    #expect(decoded + refused == Self.fuzzedFrameCount)
    // Both outcomes are common: the mutations reach the decoder's every path.
    #expect(decoded > Self.fuzzedFrameCount / 100, "\(decoded) decoded, \(refused) refused")
    #expect(refused > Self.fuzzedFrameCount / 2, "\(decoded) decoded, \(refused) refused")
  }

  // MARK: Helpers

  /// The error decoding `bytes` as a message going `direction` throws; nil
  /// when they decode.
  private static func error(decoding bytes: [UInt8], as direction: Direction) -> WireError? {
    do {
      _ = try direction.decode(bytes)
      return nil
    } catch {
      return error
    }
  }

  /// The error `reader` throws when given `bytes`; nil when it takes them.
  private static func error(
    feeding bytes: ArraySlice<UInt8>, to reader: inout WireFrameReader, collecting payloads: inout [[UInt8]]
  ) -> WireError? {
    do {
      try feed(bytes, to: &reader, collecting: &payloads)
      return nil
    } catch {
      return error
    }
  }

  /// A frame header announcing `length` bytes.
  private static func header(_ length: Int) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) }
  }

  /// Gives `bytes` to `reader` and takes every whole frame it then holds.
  private static func feed(
    _ bytes: ArraySlice<UInt8>, to reader: inout WireFrameReader, collecting payloads: inout [[UInt8]]
  ) throws(WireError) {
    bytes.withUnsafeBytes { reader.append($0) }
    while let payload = try reader.next() { payloads.append(payload) }
  }

  /// Every enum case in `value`, as `Type.case`.
  private static func collectCases(in value: Any, into found: inout Set<String>) {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .enum {
      found.insert("\(mirror.subjectType).\(mirror.children.first?.label ?? String(describing: value))")
    }
    for child in mirror.children { collectCases(in: child.value, into: &found) }
  }

  /// `message`, decoded from `bytes`, encodes to bytes that decode to it again.
  private static func expectStable(_ message: Sample, from bytes: [UInt8]) {
    let encoded = try! message.encoded()
    do {
      let again = try message.direction.decode(encoded)
      // Not a number is not equal to itself: then the bytes must be.
      if again != message && (try? again.encoded()) != encoded {
        Issue.record("\(bytes) decoded to \(message), which comes back as \(again)")
      }
    } catch {
      Issue.record("\(bytes) decoded to \(message), whose encoding does not decode: \(error)")
    }
  }

  /// `payloads` framed as one stream given to a reader in random pieces come
  /// back as they were; the stream mutated gives frames or an error.
  private static func expectFramesSurvive(_ payloads: [[UInt8]], using random: inout SplitMix64) {
    var stream = payloads.flatMap { WireFrame.frame($0) }
    var reader = WireFrameReader()
    var received: [[UInt8]] = []
    var start = 0
    do {
      while start < stream.count {
        let end = min(stream.count, start + Int.random(in: 1...96, using: &random))
        try feed(stream[start..<end], to: &reader, collecting: &received)
        start = end
      }
    } catch {
      Issue.record("frames of \(payloads.map(\.count)) bytes: \(error)")
    }
    if received != payloads || reader.pending != 0 {
      Issue.record("frames of \(payloads.map(\.count)) bytes came back as \(received.map(\.count))")
    }
    guard random.chance(25) else { return }
    for _ in 0..<Int.random(in: 1...4, using: &random) { mutate(&stream, using: &random) }
    reader = WireFrameReader()
    received = []
    start = 0
    do {
      while start < stream.count {
        let end = min(stream.count, start + Int.random(in: 1...96, using: &random))
        try feed(stream[start..<end], to: &reader, collecting: &received)
        start = end
      }
    } catch {
      // A header over the limit: the reader stops there.
    }
    for payload in received {
      for direction in Direction.allCases {
        if let message = try? direction.decode(payload) { expectStable(message, from: payload) }
      }
    }
  }

  /// Bytes worth inserting: every tag (``WireTag``), and varint edges.
  private static let edgeBytes: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x7F, 0x80, 0xFF]

  /// One random change to `bytes`: a bit flipped, a byte set, bytes
  /// inserted, a range deleted or duplicated, or the end cut off.
  private static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
    let position = Int.random(in: 0...bytes.count, using: &random)
    let index = min(position, bytes.count - 1)
    switch bytes.isEmpty ? 5 : Int.random(in: 0..<12, using: &random) {
    case 0...2: bytes[index] ^= UInt8(1) << Int.random(in: 0..<8, using: &random)
    case 3...4:
      bytes[index] = random.chance(50) ? random.pick(edgeBytes) : UInt8.random(in: 0...255, using: &random)
    case 5...6:
      var inserted: [UInt8] = []
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        inserted.append(random.chance(50) ? random.pick(edgeBytes) : UInt8.random(in: 0...255, using: &random))
      }
      bytes.insert(contentsOf: inserted, at: position)
    case 7...8: bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...8, using: &random)))
    case 9...10:
      let copy = bytes[index..<min(bytes.count, index + Int.random(in: 1...16, using: &random))]
      bytes.insert(contentsOf: copy, at: Int.random(in: 0...bytes.count, using: &random))
    default: bytes.removeSubrange(position...)
    }
  }
}

extension WireProtocolTests {
  /// Which way a message goes, and so which type reads it.
  enum Direction: CaseIterable {
    /// From the host to a plugin process: a ``HostMessage``.
    case toPlugin
    /// From a plugin process to the host: a ``PluginMessage``.
    case toHost

    /// `bytes` read as a message going this way.
    func decode(_ bytes: [UInt8]) throws(WireError) -> Sample {
      switch self {
      case .toPlugin: .toPlugin(try HostMessage.decode(bytes))
      case .toHost: .toHost(try PluginMessage.decode(bytes))
      }
    }
  }

  /// A message of either direction.
  enum Sample: Equatable, Sendable {
    case toPlugin(HostMessage)
    case toHost(PluginMessage)

    /// The way it goes.
    var direction: Direction {
      switch self {
      case .toPlugin: .toPlugin
      case .toHost: .toHost
      }
    }

    /// Its bytes on the wire.
    func encoded() throws -> [UInt8] {
      switch self {
      case .toPlugin(let message): try message.encoded()
      case .toHost(let message): try message.encoded()
      }
    }
  }
}
