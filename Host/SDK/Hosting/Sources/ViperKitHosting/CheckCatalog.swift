import ViperKit

/// A conformance check: its stable name, the lowest strictness that runs it,
/// and what it verifies, why that matters, and how to fix a failure. The same
/// text is in CHECKS.md.
public struct ConformanceCheck: Hashable, Sendable {
  /// Whether the check looks at the plugin file or at each module.
  public enum Scope: String, Hashable, Sendable {
    /// Run once per plugin file (by the host's `vivarium check`).
    case file
    /// Run once per plugin, over all its factories.
    case plugin
    /// Run once per module.
    case module
    /// Not run on its own: what every other check's run found the plugin
    /// trying that the sandbox refused.
    case sandbox
  }

  /// The name of the finding for something a plugin tried that the sandbox refused.
  public static let sandboxRefused = CheckID.sandboxRefused.rawValue

  /// Which check it is.
  public let id: CheckID
  /// The stable name, `area.aspect`.
  public var name: String { id.rawValue }
  /// The lowest strictness (1 to 10) at which it runs.
  public let level: Int
  /// What it is run on.
  public let scope: Scope
  /// What it verifies.
  public let verifies: String
  /// Why that matters.
  public let why: String
  /// How to fix a failure.
  public let fix: String

  init(id: CheckID, level: Int, scope: Scope, verifies: String, fix: String) {
    self.id = id
    self.level = level
    self.scope = scope
    self.verifies = verifies
    self.why = ConformanceCheck.why(id)
    self.fix = fix
  }

  /// Every check, in the order they run.
  public static let all: [ConformanceCheck] = [
    .init(
      id: .loadFile, level: 1, scope: .file,
      verifies: "The file is a readable ELF shared library for this machine, not writable by other users.",
      fix: "Build the plugin as a .dynamic library product and copy it whole; chmod o-w it."),
    .init(
      id: .loadEntry, level: 1, scope: .file,
      verifies:
        "dlopen succeeds and vivarium_plugin_entry returns a descriptor whose plugin type is a ViperPlugin with factories.",
      fix:
        "Export @_cdecl(\"vivarium_plugin_entry\") public func returning PluginEntry.descriptor(for:); depend on the ViperKit product."
    ),
    .init(
      id: .descriptorMagic, level: 1, scope: .file,
      verifies: "The descriptor starts with the magic 0x56495052 ('VIPR').",
      fix: "Return PluginEntry.descriptor(for:) instead of a hand-made descriptor."),
    .init(
      id: .descriptorAbi, level: 1, scope: .file, verifies: "The plugin ABI version equals the host's.",
      fix: "Rebuild the plugin against the host's ViperKit."),
    .init(
      id: .descriptorSdk, level: 1, scope: .file,
      verifies: "The SDK major equals the host's and the SDK minor is no newer.",
      fix: "Rebuild against the host's ViperKit major.minor, or upgrade the host."),
    .init(
      id: .descriptorCompiler, level: 1, scope: .file,
      verifies: "The plugin was compiled by the same Swift compiler as the host.",
      fix: "Rebuild the plugin with the host's toolchain ('vivarium --version' names it)."),
    .init(
      id: .descriptorExports, level: 1, scope: .file,
      verifies: "The plugin exports nothing but its entry symbol (a warning otherwise).",
      fix:
        "Link with a version script that exports only vivarium_plugin_entry, as 'vivarium new' writes: a file exports.map holding '{ global: vivarium_plugin_entry; local: *; };' and, on the library target in Package.swift, linkerSettings: [.unsafeFlags([\"-Xlinker\", \"--version-script=DIR/exports.map\"])], DIR being Context.packageDirectory. A release build alone still exports other symbols."
    ),
    .init(
      id: .contractUnambiguous, level: 1, scope: .plugin,
      verifies: "No two modules of the plugin have URN patterns that match the same URNs.",
      fix: "Give each module a pattern of its own shape, e.g. a distinct literal segment."),
    .init(
      id: .contractWellformed, level: 1, scope: .module,
      verifies:
        "The URN pattern parses; every placeholder is a required argument; arguments, inputs, outputs and slots are typed and unique; slots list valid patterns; commands have a name, a title and at most one key each, a key one character or Ctrl and a letter, and none twice.",
      fix: "Correct the Contract as the message says."),
    .init(
      id: .buildMinimal, level: 1, scope: .module,
      verifies:
        "The module builds (and presents) from the minimal valid arguments: required ones with sample values, defaults for the rest; it reads no argument its contract does not declare (a misspelt name reads nothing); no two of its roles conform to MessageReceiver, or to StateRestoring (the host calls only the first).",
      fix:
        "Make build(_:) succeed for every argument value the contract allows (show 'not found' in the view instead of throwing); read arguments by their declared names; let one role take messages and one keep state."
    ),
    .init(
      id: .buildMissingArgument, level: 2, scope: .module,
      verifies: "Building without a required argument throws or copes; it does not trap.",
      fix: "Read arguments with guard let and throw ModuleBuildError instead of force-unwrapping."),
    .init(
      id: .buildWrongType, level: 2, scope: .module,
      verifies: "Building with an argument of the wrong type throws or copes; it does not trap.",
      fix: "Read arguments with the typed accessors (arguments.int(_:)) and throw ModuleBuildError when nil."),
    .init(
      id: .buildUnknownArgument, level: 2, scope: .module,
      verifies: "Building with an argument the contract does not declare does not trap.",
      fix: "Ignore arguments you do not know."),
    .init(
      id: .presentationFirstCycle, level: 1, scope: .module,
      verifies: "Attach and appear make the view draw a tree.",
      fix: "On attach, let the presenter ask the interactor, and have the view call canvas.draw(_:)."),
    .init(
      id: .presentationInteraction, level: 3, scope: .module,
      verifies:
        "Every button can be tapped, the first and last row of each list selected, and each field typed into (fuzzed text from strictness 6) without crashing.",
      fix: "Handle every element the view draws; never trap on text or a row id."),
    .init(
      id: .compositionSlots, level: 3, scope: .module,
      verifies:
        "Each declared slot is drawn and accepts a probe child built from each of its patterns; every embed the module asks for names a declared slot that accepts the URN.",
      fix: "Draw .slot(name) for every declared slot, and embed only URNs the slot accepts."),
    .init(
      id: .compositionOutputs, level: 3, scope: .module,
      verifies:
        "Every output emitted while presenting and interacting is declared in the contract, with its fields (each one that is not is named); an output declared but never emitted is a warning.",
      fix:
        "Declare each output the module emits in Contract.outputs, with its fields and their types; emit each one declared, or remove it."
    ),
    .init(
      id: .compositionInputs, level: 3, scope: .module,
      verifies: "Each declared input, sent with sample fields, is accepted by the module's receiver.",
      fix: "Pass receiver: to Module(...) and handle each declared input."),
    .init(
      id: .compositionLifecycle, level: 3, scope: .module,
      verifies:
        "Nothing is drawn, requested or emitted during build; attach, appear, disappear, appear, disappear, detach are handled without trapping.",
      fix: "Do work on attach, not in build(_:); keep lifecycle handlers free of assumptions about how often they run."),
    .init(
      id: .navigationDeclared, level: 3, scope: .module,
      verifies:
        "Every push, present and replace the module asks for while presenting and interacting is declared in Contract.opens, with the query arguments it passes and their types; one whose URN a module of the same plugin answers resolves to it with arguments its contract accepts (plugins built against ViperKit 2.4 or later).",
      fix:
        "Correct the URN the router builds, or declare the target in Contract.opens: .push(\"pattern\", arguments: [\"name\": .string])."
    ),
    .init(
      id: .navigationBack, level: 3, scope: .module,
      verifies:
        "The module, shown as the first screen of the app, does not ask to go back with pop() (a warning: the host has nowhere to go back to, and a module is the first screen when it is the start, a replace target or the first URN of a deep link).",
      fix:
        "Offer a way out that works on a first screen, such as replace(_:) with the screen to return to; pop() only from screens that are always pushed, and dismiss() from presented ones."
    ),
    .init(
      id: .servicesDeclared, level: 3, scope: .module,
      verifies:
        "Presenting the module (with the work it starts, run until it settles, in vivarium check), acting on its first screen and answering its inputs use no host service its contract does not list in services (the host hands it a stand-in that does nothing) and call no business service it does not list in requires (the host refuses the call).",
      fix:
        "List what the module uses: a host service in Contract.services (services: [.clock]), a business service in Contract.requires (requires: [.required(WeatherService.self, \"1.0\"..<\"2.0\")]); or stop using it."
    ),
    .init(
      id: .leaksTeardown, level: 4, scope: .module,
      verifies: "After disappear and detach, no object of the module's roles is alive.",
      fix: "Make every back reference weak: presenter → view, interactor → presenter, router → view."),
    .init(
      id: .leaksRepeated, level: 6, scope: .module,
      verifies:
        "Building and tearing the module down 10 times the strictness does not grow resident memory by more than 16 MB.",
      fix: "Release caches, observers and timers on detach."),
    .init(
      id: .concurrencyBuild, level: 8, scope: .module,
      verifies: "Several instances built side by side, then presented one after another, draw what one alone draws.",
      fix: "Keep factories stateless and module state per instance; share data only through an owner made for it."),
    .init(
      id: .serviceAnswers, level: 1, scope: .plugin,
      verifies:
        "Each business service the plugin provides, made with fake services, answers every operation called with a sample request within its deadline: a response, its declared failure, or its dependencies' error; and uses only the host services its static let services lists and the business services its static let requires lists (a failure for each other one names what to list).",
      fix:
        "Throw the operation's declared failure rather than another error; decode what the request type declares; answer within the deadline."
    ),
    .init(
      id: .speedLoad, level: 5, scope: .file,
      verifies: "Loading the plugin takes under 100 ms (a warning otherwise).",
      fix: "Do no work in the entry point or factories(); build lazily."),
    .init(
      id: .speedFirstRender, level: 5, scope: .module,
      verifies: "Building and the first presentation cycle take under 50 ms (a warning otherwise).",
      fix: "Move slow work off the first cycle; load data lazily."),
    .init(
      id: .sandboxRefused, level: 1, scope: .sandbox,
      verifies:
        "While the other checks run it, in the sandbox it runs in, the plugin tries nothing the sandbox refuses: no file outside its own, no program, process, socket or other process, no call of the kernel's that no plugin needs. Each refusal is reported once; selected alone (--only sandbox.refused), every check of the strictness runs to exercise the plugin and only these findings are reported.",
      fix:
        "Keep data in the storage service, reach the network through the http service (declare the host), and ask other plugins' services for the rest; the finding names the call and the path."
    ),
  ]

  /// Why the check matters.
  static func why(_ id: CheckID) -> String {
    switch id {
    case .loadFile:
      "A file the host cannot read as a shared object never loads; one other users can write lets anyone run code as you."
    case .loadEntry:
      "The entry is the only way in: without it, or with a plugin type from another ViperKit copy, the host cannot reach any module."
    case .descriptorMagic:
      "The magic tells a Vivarium descriptor from any other pointer before the host trusts a single field."
    case .descriptorAbi:
      "The descriptor's layout follows the ABI version; read with another layout, every field is garbage."
    case .descriptorSdk:
      "A plugin built against a newer SDK may call what this host lacks; another major may have broken what it relies on."
    case .descriptorCompiler:
      "Swift has no stable ABI on Linux: code from another compiler can corrupt memory silently."
    case .descriptorExports:
      "Every exported symbol can clash with another plugin's and slows loading; only the entry is needed."
    case .contractUnambiguous:
      "The host refuses to guess between two modules that answer the same URN, so neither would be reachable."
    case .contractWellformed:
      "The router, argument validation and the catalog all read the contract; a malformed one routes wrongly or not at all."
    case .serviceAnswers:
      "A provider that traps, hangs or throws what its interface does not declare fails every consumer of every plugin that uses it."
    case .buildMinimal:
      "Any URN the contract accepts can be opened, so the module must build for the least a caller may give."
    case .buildMissingArgument:
      "Hosts and test harnesses other than this one may not validate arguments first; a trap takes the whole app down."
    case .buildWrongType:
      "A trap on a wrongly typed value takes the whole app down instead of showing an error."
    case .buildUnknownArgument:
      "Newer hosts and deep links may pass arguments this version does not know."
    case .presentationFirstCycle:
      "A module that draws nothing shows a blank screen; the host reports it as an error."
    case .presentationInteraction:
      "Everything drawn can be acted on by a person typing anything; a trap ends their session."
    case .compositionSlots:
      "A slot that is never drawn hides its children; an embed the contract does not allow is refused at run time."
    case .compositionOutputs:
      "The host delivers only declared outputs; anything else is dropped and reported, and the parent never hears of it."
    case .compositionInputs:
      "A parent relies on the inputs the contract promises; without a receiver they are refused."
    case .compositionLifecycle:
      "The host decides when a module is shown; work done in build happens before anything is on screen, and may happen for modules never shown."
    case .navigationDeclared:
      "Plugins are built apart, so no compiler sees a URN typed in one and answered in another; a typo fails only when a person taps the button."
    case .navigationBack:
      "On a first screen a Back button does nothing but report an error, and the person is stuck."
    case .servicesDeclared:
      "A module gets only the services its contract lists; one it forgot is a stand-in that does nothing, and a business service it does not require is refused, so the screen waits forever for what it never gets."
    case .leaksTeardown:
      "A view and presenter holding each other strongly is the classic VIPER leak; every closed screen stays in memory."
    case .leaksRepeated:
      "Screens are opened and closed all day; memory kept per build grows until the app is killed."
    case .concurrencyBuild:
      "A screen is often open twice (a list under its own detail, two tabs); instances that share mutable state corrupt each other."
    case .speedLoad:
      "Every plugin loads when the host starts; a slow one delays every session."
    case .speedFirstRender:
      "The first cycle is between a tap and the next screen; slow work there is felt every time."
    case .sandboxRefused:
      "A plugin runs confined: what the sandbox refuses fails for every person who installs it, so the feature that needed it is broken everywhere."
    }
  }

  /// The checks that run at `strictness` and pass the `only`/`skip` patterns
  /// (see ``ConformanceCheck/matches(_:pattern:)``), with the reason others
  /// are skipped.
  public static func plan(
    strictness: Int, only: [String] = [], skip: [String] = [], scopes: Set<ConformanceCheck.Scope>
  )
    -> [(check: ConformanceCheck, skipReason: String?)]
  {
    all.filter { scopes.contains($0.scope) }.map { check in
      if !only.isEmpty, !only.contains(where: { ConformanceCheck.matches(check.name, pattern: $0) }) {
        return (check, "not selected by --only")
      }
      if skip.contains(where: { ConformanceCheck.matches(check.name, pattern: $0) }) {
        return (check, "skipped by --skip")
      }
      if check.level > strictness { return (check, "runs from strictness \(check.level)") }
      return (check, nil)
    }
  }

  /// `fix: …`, the catalog's advice for the check `name`.
  public static func fixText(_ name: String) -> String {
    named(name).map { "fix: " + $0.fix } ?? ""
  }

  /// The check named `name`.
  public static func named(_ name: String) -> ConformanceCheck? { all.first { $0.name == name } }

  /// Whether `name` matches a `--only`/`--skip` pattern: an exact name, a
  /// prefix ending in `.` or `*` (`build.`, `build*`), or `*`.
  public static func matches(_ name: String, pattern: String) -> Bool {
    if pattern == "*" || pattern == name { return true }
    if pattern.hasSuffix("*") { return name.hasPrefix(String(pattern.dropLast())) }
    if pattern.hasSuffix(".") { return name.hasPrefix(pattern) }
    return name.hasPrefix(pattern + ".")
  }
}

/// Every conformance check, by its stable name (`area.aspect`): the one
/// declaration the catalog, the checkers and what they report are keyed by,
/// so that a misspelt check is a compile error, not a check never run.
public enum CheckID: String, CaseIterable, Hashable, Sendable {
  /// `load.file`.
  case loadFile = "load.file"
  /// `load.entry`.
  case loadEntry = "load.entry"
  /// `descriptor.magic`.
  case descriptorMagic = "descriptor.magic"
  /// `descriptor.abi`.
  case descriptorAbi = "descriptor.abi"
  /// `descriptor.sdk`.
  case descriptorSdk = "descriptor.sdk"
  /// `descriptor.compiler`.
  case descriptorCompiler = "descriptor.compiler"
  /// `descriptor.exports`.
  case descriptorExports = "descriptor.exports"
  /// `contract.unambiguous`.
  case contractUnambiguous = "contract.unambiguous"
  /// `contract.wellformed`.
  case contractWellformed = "contract.wellformed"
  /// `build.minimal`.
  case buildMinimal = "build.minimal"
  /// `build.missing-argument`.
  case buildMissingArgument = "build.missing-argument"
  /// `build.wrong-type`.
  case buildWrongType = "build.wrong-type"
  /// `build.unknown-argument`.
  case buildUnknownArgument = "build.unknown-argument"
  /// `presentation.first-cycle`.
  case presentationFirstCycle = "presentation.first-cycle"
  /// `presentation.interaction`.
  case presentationInteraction = "presentation.interaction"
  /// `composition.slots`.
  case compositionSlots = "composition.slots"
  /// `composition.outputs`.
  case compositionOutputs = "composition.outputs"
  /// `composition.inputs`.
  case compositionInputs = "composition.inputs"
  /// `composition.lifecycle`.
  case compositionLifecycle = "composition.lifecycle"
  /// `navigation.declared`.
  case navigationDeclared = "navigation.declared"
  /// `navigation.back`.
  case navigationBack = "navigation.back"
  /// `services.declared`.
  case servicesDeclared = "services.declared"
  /// `leaks.teardown`.
  case leaksTeardown = "leaks.teardown"
  /// `leaks.repeated`.
  case leaksRepeated = "leaks.repeated"
  /// `concurrency.build`.
  case concurrencyBuild = "concurrency.build"
  /// `service.answers`.
  case serviceAnswers = "service.answers"
  /// `speed.load`.
  case speedLoad = "speed.load"
  /// `speed.first-render`.
  case speedFirstRender = "speed.first-render"
  /// `sandbox.refused`.
  case sandboxRefused = "sandbox.refused"
}
