import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// `vivarium render URN`: build one module, present it once, print it.
enum RenderCommand: Command {
  static let name = "render"
  static let summary = "Build the module at a URN, run its first presentation cycle, print the screen."
  static let synopsis =
    "vivarium render URN [--arg NAME=VALUE]... [--plugins DIR]... [--json] [--in-process | --no-sandbox] [--allow PLUGIN[:PERMISSION]]..."
  static let details = """
    Resolves URN (see 'URN syntax' in docs/reference.md), checks its arguments against the
    module's contract, builds the module, runs attach and appear (view ready -> presenter
    -> interactor -> presenter -> view), waits for the work that started (a service call,
    a load) to end or sleep on the clock, up to 10 s, prints the screen it drew, then sends
    disappear and detach and releases it. With --json, prints the view tree instead.
    """
  static let arg = ValueOption(
    "arg", "NAME=VALUE", "Give the argument NAME (repeatable); typed by the module's contract.")
  static let options: [any CommandOption] =
    [arg, CommonOptions.plugins, CommonOptions.data, CommonOptions.noCache, CommonOptions.json] + HostingOptions.all
  static let exitCodes = """
    0 rendered; 1 the URN, an argument or the module failed, or a --plugins path does not exist (the reason is on stderr); 2 usage error.
    """

  /// How long the module's first work may take before the screen is
  /// printed as it is, in real seconds.
  static let renderLimit = 10.0

  /// What `--json` prints.
  struct Output: Encodable {
    let screen: ComposedScreen
    let arguments: [String: ArgumentValue]
    let problems: [String]
    let leaks: [String]
  }

  static func run(_ arguments: ParsedArguments, _ console: Console) async throws -> Int32 {
    guard arguments.positionals.count == 1 else {
      throw UsageError(
        arguments.positionals.isEmpty
          ? "missing the URN to render, e.g. 'vivarium render items:list'"
          : "expected one URN, got \(arguments.positionals.count): \(arguments.positionals.joined(separator: " "))")
    }
    var extra: [(name: String, value: String)] = []
    for pair in arguments.all(arg) {
      guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
        throw UsageError("--arg takes NAME=VALUE, got '\(pair)'")
      }
      extra.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
    }
    let hosting = try HostingOptions.processes(
      arguments, executable: PluginCatalogLoader.executablePath, console, command: name)
    let (discovery, catalog) = try PluginCatalogLoader.load(arguments, console, command: name, hosting: hosting)
    let runtime = try RuntimeSetup.runtime(catalog, arguments, console, command: name)
    let scheme = try? AppManifest.find(in: discovery.directories)?.get().scheme
    do {
      try await runtime.open(arguments.positionals[0], arguments: extra, scheme: scheme)
    } catch {
      console.error(name, error.message)
      return ExitCode.failure
    }
    // Modules draw when their work ends (a service's answer) and, in
    // plugin processes, when they answer.
    let busy = await runtime.settleWork(limit: renderLimit)
    if !busy.isEmpty {
      console.warning(
        name, "still busy after \(Int(renderLimit)) s: \(busy.joined(separator: ", ")); the screen is drawn as it is")
    }
    // open() succeeded, so a screen is shown.
    let screen = runtime.screen()!
    let problems = runtime.takeProblems()
    let resolved = runtime.top!.resolved
    runtime.shutdown()
    await runtime.awaitLeakChecks()
    let leaks = runtime.leaks.flatMap(\.roles)
    for problem in problems { console.warning(name, problem.description) }
    for leak in runtime.leaks {
      console.warning(
        name,
        "\(leak.module) left \(leak.roles.joined(separator: ", ")) alive after detach: a reference cycle between its roles; make back references weak"
      )
    }
    if arguments.has(CommonOptions.json) {
      console.json(
        Output(
          screen: screen, arguments: resolved.arguments.values, problems: problems.map(\.description), leaks: leaks))
    } else {
      console.out(screen.lines(TextRenderer(width: console.width, style: console.style)).joined(separator: "\n"))
    }
    return ExitCode.success
  }
}
