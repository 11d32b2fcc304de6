// vivarium-check: runs conformance checks on one plugin and replies with the
// results. `vivarium check` starts it, one process per check (or one for all
// with --in-process); it is the only executable that links the test kit.
import Foundation
import ViperKit
import ViperKitTestKit
import VivariumLoading
import VivariumTools

let usage = """
  vivarium-check: the conformance check runner 'vivarium check' starts; not for people.

  Usage: vivarium-check FILE STRICTNESS CHECK[@MODULE]...

  Loads the plugin FILE (handed over open as file descriptor 4 by 'vivarium check')
  and runs each CHECK (on the module with URN pattern MODULE) at STRICTNESS,
  replying with the results on file descriptor 3. Run 'vivarium check --help'
  instead.

  Exit codes: 0 the results were sent; 2 usage error.
  """

/// Runs one plugin (`module` nil) or module check in this process.
@MainActor func run(_ job: Job, plugin: LoadedPlugin, strictness: Int) async -> CheckResult {
  // Loaded by this process's own loader: every module is built here.
  let factories = plugin.factoriesInThisProcess ?? []
  guard let check = CheckID(rawValue: job.check) else {
    return CheckResult(
      check: job.check, status: .failed, module: job.module, message: "no check is named '\(job.check)'")
  }
  if check == .serviceAnswers { return await Conformance.runProviderCheck(plugin.providerTypes) }
  guard let module = job.module else { return Conformance.run(check, factories: factories, strictness: strictness) }
  guard let factory = factories.first(where: { $0.contract.urn == module }) else {
    return CheckResult(
      check: job.check, status: .failed, module: module, message: "the plugin no longer offers \(module)")
  }
  return await Conformance.runWithWork(
    check, on: factory, strictness: strictness, plugin: factories, sdkVersion: plugin.sdkVersion)
}

@MainActor func main() async -> Int32 {
  let arguments = Array(CommandLine.arguments.dropFirst())
  guard arguments.count >= 3, let strictness = Int(arguments[1]) else {
    FileHandle.standardError.write(Data((arguments.contains("--help") ? usage : "vivarium-check: " + usage).utf8))
    return arguments.contains("--help") ? 0 : 2
  }
  ProcessConfinement.isolateNetwork()
  let nonce = ChildChannel.begin()
  let jobs = arguments.dropFirst(2).map(Job.init(argument:))
  let results: [CheckResult]
  // Confined as a plugin process is: the checks run the plugin's code.
  var loader = PluginLoader(validatesContracts: false)
  // Recording what the sandbox refuses, for the findings that name it.
  loader.beforeMapping = { ProcessConfinement.confine(for: $0, reportingRefusals: true) }
  var refused: [CheckReply.Refusal] = []
  var unrecorded = 0
  /// Keeps what the sandbox refused since the last call, on `module`.
  func takeRefusals(module: String?) {
    let (refusals, dropped) = SandboxRefusal.take()
    refused += refusals.map { CheckReply.Refusal(module: module, message: $0.description) }
    unrecorded += dropped
  }
  if case .loaded(let plugin) = loader.loadInherited(ChildChannel.fileDescriptor, path: arguments[0]) {
    var done: [CheckResult] = []
    takeRefusals(module: nil)
    for job in jobs {
      done.append(await run(job, plugin: plugin, strictness: strictness))
      takeRefusals(module: job.module)
    }
    results = done
  } else {
    results = jobs.map {
      CheckResult(
        check: $0.check, status: .failed, module: $0.module,
        message: "the plugin did not load in the check process; 'vivarium plugins --plugins FILE' says why")
    }
  }
  var seen: Set<String> = []
  let reply = CheckReply(
    results: results, refusals: refused.filter { seen.insert($0.message).inserted }, unrecorded: unrecorded)
  ChildChannel.reply((try? JSONEncoder().encode(reply)) ?? Data(), nonce: nonce)
  return 0
}

exit(await main())
