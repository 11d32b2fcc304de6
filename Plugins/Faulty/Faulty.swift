import Glibc
import ViperKit

// The Faulty plugin misbehaves on purpose, to show and test that a crashing
// plugin cannot take down the host. `faulty:{how}` traps, writes through a bad
// pointer, hangs, exits, allocates without bound or garbles the channel to
// its host, at build, on attach or on a tap (`?at=`); `faulty:leak` keeps its
// roles alive after detach; `faulty:demo` is a screen with a note to save and
// a Crash button; `faulty:escape` tries what a hostile plugin would
// (FaultyEscape.swift). Scripts/make-plugin-dir links it only when
// VIVARIUM_DEMO_FAULTY=1.

/// A way to misbehave, the entity: the `how` of `faulty:{how}`.
enum Misbehaviour: String, CaseIterable, ViperEntity {
  case trap, segfault, hang, exit, allocate, garble, leak, slow

  /// What it does, for the screen.
  var summary: String {
    switch self {
    case .trap: "trap (fatalError)"
    case .segfault: "write through a bad pointer (SIGSEGV)"
    case .hang: "hang forever"
    case .exit: "call exit(3)"
    case .allocate: "allocate memory without bound"
    case .garble: "write a frame too long for the host into its plugin process's channel"
    case .leak: "keep its view and presenter alive after it is closed"
    case .slow: "take 1 s to answer, reading its storage at the end, then carry on"
    }
  }

  /// Misbehaves and never returns; `moment` is named in the trap's message.
  @MainActor
  func perform(at moment: Moment) -> Never {
    switch self {
    case .trap:
      fatalError("faulty: asked to trap at \(moment.rawValue)")
    case .segfault:
      UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
      fatalError("faulty: writing through a bad pointer did not crash")
    case .hang:
      while true { sleep(1) }
    case .exit:
      Glibc.exit(3)
    case .allocate:
      // Non-zero bytes, so that every page is really used.
      while true { hoard.append([UInt8](repeating: 0xA5, count: 64 << 20)) }
    case .garble:
      // Descriptor 3 is the channel to the host in a plugin process; in one
      // process it is some file of the host's, which must not be touched.
      var info = stat()
      guard fstat(3, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else {
        fatalError("faulty: there is no plugin process channel to garble (run without --in-process)")
      }
      let header: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F]
      _ = header.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
      while true { sleep(1) }
    case .leak:
      fatalError("faulty: leak misbehaves only by staying alive")
    case .slow:
      fatalError("faulty: slow misbehaves only on a tap, and then carries on")
    }
  }
}

/// What `allocate` keeps, so that nothing it allocates is ever freed.
@MainActor private var hoard: [[UInt8]] = []

/// When `faulty:{how}` misbehaves: the `at` argument.
enum Moment: String, CaseIterable, ViperEntity {
  /// When the Misbehave button is tapped (the default).
  case tap
  /// Inside the factory's build.
  case build
  /// In the presenter's attach.
  case present
  /// Never: the button only says it was tapped.
  case never
  /// When the host asks whether it may be left (`hang` waits, without
  /// blocking its process, until the host cancels the question).
  case leave
}

/// What `faulty:{how}` shows.
struct FaultyScreen: ViperViewModel {
  let heading: String
  let explanation: String
  let tapped: Bool
}

/// What `faulty:demo` shows.
struct FaultyDemoScreen: ViperViewModel {
  let note: String
  let saved: String
  let problem: String?
}

enum FaultyContract {
  static let faulty = Contract(
    urn: "faulty:{how}",
    summary:
      "Misbehaves on purpose (trap, segfault, hang, exit, allocate, garble; leak stays alive; slow answers late) on a tap, at build or on attach.",
    arguments: [
      .required("how", .string, "How: \(Misbehaviour.allCases.map(\.rawValue).joined(separator: ", "))."),
      .choice(
        "at", Moment.allCases.map(\.rawValue),
        "When: on tapping Misbehave, inside build, on attach, never (the button only says it was tapped), or when asked whether it may be left."
      ),
    ],
    services: [.storage])

  static let demo = Contract(
    urn: "faulty:demo",
    summary: "A note to save, and a Crash button: the host keeps running and shows the crash in its place.",
    services: [.storage])

  static let goID = "go"
  static let noteID = "note"
  static let saveID = "save"
  static let saveNowID = "saveNow"
  static let crashID = "crash"
  /// The storage key of the saved note.
  static let noteKey = "note"
}

/// Builds `faulty:{how}`, misbehaving right here when `at` is `build`;
/// a `how` it does not know does not open.
struct FaultyFactory: OpenGuard {
  static let contract = FaultyContract.faulty

  func shouldOpen(_ request: OpenRequest) async -> OpenDecision {
    guard case .string(let how)? = request.arguments["how"], Misbehaviour(rawValue: how) == nil else { return .open }
    return .refuse(reason: Self.unknown(how))
  }

  /// Why `how` is no way to misbehave, and which are.
  private static func unknown(_ how: String) -> String {
    "there is no way to misbehave called '\(how)'; use one of \(Misbehaviour.allCases.map(\.rawValue).joined(separator: ", "))"
  }

  func build(_ context: ModuleContext) throws -> Module {
    let how = context.arguments.string("how") ?? ""
    guard let misbehaviour = Misbehaviour(rawValue: how) else { throw ModuleBuildError("faulty: " + Self.unknown(how)) }
    let at = context.arguments.string("at") ?? Moment.tap.rawValue
    guard let asked = Moment(rawValue: at) else {
      let allowed = Moment.allCases.map(\.rawValue).joined(separator: ", ")
      throw ModuleBuildError("faulty: 'at' is '\(at)'; use one of \(allowed)")
    }
    // Leaking is what it is built as, not something it does.
    let moment = misbehaviour == .leak ? Moment.never : asked
    if moment == .build { misbehaviour.perform(at: moment) }
    let interactor = FaultyInteractor(misbehaviour: misbehaviour, moment: moment, storage: context.services.storage)
    let router = FaultyRouter()
    let presenter = FaultyPresenter(interactor: interactor, router: router, misbehaviour: misbehaviour, moment: moment)
    let view = FaultyView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    if misbehaviour == .leak { presenter.cycle = view }
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// Builds `faulty:demo`.
struct FaultyDemoFactory: ModuleFactory {
  static let contract = FaultyContract.demo

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = FaultyDemoInteractor(services: context.services, work: context.work)
    let router = FaultyRouter()
    let presenter = FaultyDemoPresenter(interactor: interactor, router: router)
    let view = FaultyDemoView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor, router: router)
  }
}

/// The plugin: `faulty:{how}` and `faulty:demo`, which crash on purpose,
/// and `faulty:escape`, which tries to get out of its process.
public enum FaultyPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] {
    [FaultyFactory(), FaultyDemoFactory(), FaultyEscapeFactory()]
  }
  /// The faulty service.
  public static var providers: [any ServiceProvider.Type] { [FaultyProvider.self] }
  /// Its fetch reaches this machine only.
  public static var hosts: [String] { ["127.0.0.1"] }
}

/// The plugin's entry point, the only symbol the host looks up.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: FaultyPlugin.self)
}
