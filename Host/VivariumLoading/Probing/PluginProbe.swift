import Foundation

/// Loads plugins first in child processes, so that a plugin that traps,
/// segfaults or hangs while loading is reported by name instead of taking the
/// host down (GStreamer's plugin scanner does the same).
///
/// A child is the host's own executable run as `EXECUTABLE __probe -- FILE…`,
/// which calls ``PluginProbe/childMain(_:)``. It is handed the files the host
/// opened and checked, loads exactly those, one after the other, and reports
/// each (its contracts, or why it was refused) on a channel of its own
/// (``ChildChannel``) as soon as it is done with it. Files are probed in
/// batches, one child per core (see ``scan(_:validatingContracts:)``).
///
/// What this does not guarantee: plugin code that behaves in the probe and
/// misbehaves in the host (it can tell them apart) still runs in the host.
/// Running plugins in processes of their own is the answer to that.
package struct PluginProbe: Sendable {
  /// The host executable to re-run.
  package let executable: String
  /// How long one file may take to load in the child.
  package let timeout: Duration

  /// The hidden command name the child is run with.
  package static let command = "__probe"

  /// What the kernel offers of what the probe's sandbox needs.
  let support: SandboxSupport

  /// A probe that re-runs `executable`.
  package init(executable: String, timeout: Duration = .seconds(10)) {
    self.init(executable: executable, timeout: timeout, support: .current)
  }

  /// A probe on a kernel offering `support` (tests).
  package init(executable: String, timeout: Duration = .seconds(10), support: SandboxSupport) {
    self.executable = executable
    self.timeout = timeout
    self.support = support
  }

  /// What probing each of `files` found, in order: what it offers, or why it
  /// was refused.
  ///
  /// The files are split into one batch per core, or more when a batch
  /// would hold over ``filesPerChild`` files, and each batch is loaded in
  /// one child, as many at once as there are cores. The child reports each
  /// file as it finishes it, so when it dies the file it was loading is
  /// known: that file is reported with the signal (or the timeout, or the
  /// exit) that ended it, and the rest of the batch goes on in a new child.
  /// When other plugins had run in the dead child first, the file is probed
  /// again alone, so that the one named is the one that dies on its own.
  /// `children` is how many batches at the least: one per core unless a test says.
  func scan(_ files: [PluginFile], validatingContracts: Bool = true, children: Int? = nil) -> [Result<
    PluginRecord, Rejection
  >] {
    guard !files.isEmpty else { return [] }
    // No plugin code runs unconfined: on a kernel that cannot confine the
    // probe, each file is refused, naming what the kernel lacks.
    if case let missing = support.missing, !missing.isEmpty {
      return files.map { file in
        .failure(
          Rejection(
            file.path, .sandboxMissing,
            "this kernel cannot confine the process that runs a plugin's code to learn what it offers: it lacks \(missing.joined(separator: "; and ")). Run on a kernel that has it, or rebuild the plugin with a manifest (docs/writing-a-plugin.md), which the host reads without running it"
          ))
      }
    }
    let cores = max(children ?? ProcessInfo.processInfo.activeProcessorCount, 1)
    let count = min(max(cores, (files.count + Self.filesPerChild - 1) / Self.filesPerChild), files.count)
    let batches = (0..<count).map { index in
      Array(files[(files.count * index / count)..<(files.count * (index + 1) / count)])
    }
    return batches.concurrentMap { batch in
      scanBatch(batch, validatingContracts: validatingContracts)
    }.flatMap { $0 }
  }

  /// The most files one child is handed: half the descriptors a confined
  /// process may hold (``ProcessConfinement/openFiles``), so that it can
  /// still open what confining itself and loading them take. A child handed
  /// 250 of them (two cores' batches of 500 plugins) had no descriptor left
  /// for its Landlock ruleset, so it exited, and was started again with the
  /// rest of its batch for each file it had not reported: 500 plugins took
  /// 8 to 13 s to probe, and more than half were refused as crashed.
  static let filesPerChild = Int(ProcessConfinement.openFiles) / 2

  private func scanBatch(_ files: [PluginFile], validatingContracts: Bool) -> [Result<PluginRecord, Rejection>] {
    var results: [Result<PluginRecord, Rejection>] = []
    var rest = files[...]
    while !rest.isEmpty {
      let run = runChild(Array(rest), validatingContracts: validatingContracts)
      results += run.reports
      rest = rest.dropFirst(run.reports.count)
      guard let ending = run.ending, let culprit = rest.first else { continue }
      rest = rest.dropFirst()
      if run.reports.isEmpty {
        results.append(.failure(ending))
      } else {
        // Other plugins ran in that child first: the one named must die alone.
        let alone = runChild([culprit], validatingContracts: validatingContracts)
        results.append(alone.reports.first ?? .failure(alone.ending ?? ending))
      }
    }
    return results
  }

  /// Runs one child on `files`: the reports it gave, in order, and when it
  /// ended before reporting on every file, why the next file was refused.
  private func runChild(_ files: [PluginFile], validatingContracts: Bool) -> (
    reports: [Result<PluginRecord, Rejection>], ending: Rejection?
  ) {
    let arguments = [PluginProbe.command] + (validatingContracts ? [] : ["--no-contracts"]) + ["--"] + files.map(\.path)
    let outcome = ChildProcess.run(executable, arguments, timeout: timeout, passing: files.map(\.descriptor))
    let replies: [Data]
    switch outcome {
    case .failedToStart: replies = []
    case .flooded(let sent), .timedOut(let sent, _), .signaled(_, let sent, _), .exited(_, let sent, _): replies = sent
    }
    var whole: [Result<PluginRecord, Rejection>] = []
    // Whether the file being loaded got as far as its entry point.
    var entryCalled = false
    for reply in replies where whole.count < files.count {
      if reply == Self.entryMarker {
        entryCalled = true
        continue
      }
      guard let report = try? JSONDecoder().decode(ProbeReport.self, from: reply),
        let result: Result<PluginRecord, Rejection> = report.rejection.map({ .failure($0) })
          ?? report.record.map({ .success($0) })
      else { break }
      whole.append(result)
      entryCalled = false
    }
    guard whole.count < files.count else { return (whole, nil) }
    return (whole, rejection(files[whole.count].path, outcome, entryCalled: entryCalled))
  }

  /// The reply a child sends when the dynamic loader is done with a file,
  /// just before calling its entry point.
  static let entryMarker = Data("entry".utf8)

  /// Why the file `path` was refused when its child ended as `outcome`
  /// without reporting on it; `entryCalled` tells whether the dynamic loader
  /// was done with it.
  private func rejection(_ path: String, _ outcome: ChildProcess.Outcome, entryCalled: Bool) -> Rejection {
    switch outcome {
    case .failedToStart(let reason):
      return Rejection(path, .crashed, "the host could not start its probe process \(reason)")
    case .timedOut:
      return Rejection(
        path, .timedOut,
        "loading did not finish within \(timeout) (the entry point or factories() hangs); the probe was killed. Make both return at once"
      )
    case .flooded:
      return Rejection(
        path, .crashed,
        "while loading, code in it wrote into the probe's report channel (descriptor 3) bytes that are no report, or a report over \(ChildProcess.replyLimit) bytes; the probe was killed"
      )
    case .signaled(let signal, _, let stderr) where !entryCalled:
      return Self.crashedInsideLoader(path, signal: signal, stderr: stderr)
    case .signaled(let signal, _, let stderr):
      return Rejection(
        path, .crashed,
        "it crashed while loading (\(ChildProcess.describe(signal: signal)))\(Self.said(stderr)) in its entry point or factories(); the host skipped it. Debug it with '--in-process'"
      )
    case .exited(let status, _, let stderr):
      return Rejection(
        path, .crashed,
        "the probe process exited with status \(status) without its report\(Self.said(stderr)): code in the plugin ended the process while it loaded (a constructor or the entry point calling exit, or a fatal error). Debug it with '--in-process'"
      )
    }
  }

  /// The file `path` whose process `signal` ended before its entry point
  /// was called, with the tail of its `stderr`: it crashed inside the
  /// dynamic loader, so it may be damaged.
  static func crashedInsideLoader(_ path: String, signal: Int32, stderr: String) -> Rejection {
    Rejection(
      path, .crashed,
      "it crashed inside the dynamic loader (\(ChildProcess.name(signal: signal)))\(said(stderr)), before its entry point was called: the file may be damaged (a copy or build cut short or written over); rebuild it, and if a fresh build crashes too, a static constructor in it does"
    )
  }

  /// `, saying "…"` with the Swift fatal-error line of `stderr`, if any.
  package static func said(_ stderr: String) -> String {
    ChildProcess.fatalErrorLine(stderr).map { ", saying \"\($0)\"" } ?? ""
  }

  /// The child side, `__probe [--no-contracts] -- FILE…`: reads the nonce,
  /// then loads each file its parent handed it (descriptors 4, 5 and on) and
  /// replies with its outcome before going on to the next. Returns the exit
  /// status.
  package static func childMain(_ arguments: [String]) -> Int32 {
    ProcessConfinement.isolateNetwork()
    let nonce = ChildChannel.begin()
    guard let separator = arguments.firstIndex(of: "--") else { return 2 }
    var loader = PluginLoader(validatesContracts: !arguments[..<separator].contains("--no-contracts"))
    // Confined before the first file: the folders of all of them, where
    // their libraries are, stay readable.
    let folders = (0..<(arguments.count - separator - 1)).flatMap {
      ProcessConfinement.foldersAround(descriptor: ChildChannel.fileDescriptor + Int32($0))
    }
    loader.beforeMapping = { ProcessConfinement.confine(for: $0, readable: folders) }
    loader.beforeEntry = { ChildChannel.reply(entryMarker, nonce: nonce) }
    for (index, path) in arguments[(separator + 1)...].enumerated() {
      let report: ProbeReport
      switch loader.loadInherited(ChildChannel.fileDescriptor + Int32(index), path: path) {
      case .loaded(let plugin): report = ProbeReport(record: PluginRecord(plugin), rejection: nil)
      case .rejected(let rejection): report = ProbeReport(record: nil, rejection: rejection)
      }
      ChildChannel.reply(report.bytes(path: path), nonce: nonce)
    }
    return 0
  }
}

struct ProbeReport: Codable {
  let record: PluginRecord?
  let rejection: Rejection?

  /// The report as the probe sends it; for a plugin whose contracts take
  /// more than ``PluginLimits/contractBytes``, a rejection saying so.
  func bytes(path: String) -> Data {
    // Encoding a plain Codable struct cannot fail.
    let bytes = (try? JSONEncoder().encode(self)) ?? Data()
    guard let record,
      let refusal = PluginLimits.rejection(
        path, count: record.contracts.count, bytes: bytes.count, as: "the probe's report (JSON)")
    else { return bytes }
    return ProbeReport(record: nil, rejection: refusal).bytes(path: path)
  }
}
