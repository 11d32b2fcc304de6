import Foundation
import Glibc
import Testing

@testable import VivariumLoading
@testable import VivariumTools

/// Plugin code that runs in the probe process cannot stall the host, flood
/// it, or forge the probe's verdict into a pass.
@Suite("Probes that plugin code cannot stall or fool")
@MainActor
struct ProbeHardeningTests {
  /// Generous, for a busy machine: none of these tests is about the limit itself.
  private let probe = PluginProbe(executable: BuildProducts.vivarium, timeout: .seconds(120))

  private func probed(_ constructor: String, in dir: TemporaryDirectory) throws -> Rejection? {
    let path = try CPluginBuilder.plugin(constructor: constructor, named: "plugin.so", in: dir)
    guard case .rejected(let rejection) = PluginLoader(probe: probe).load(path) else { return nil }
    return rejection
  }

  /// A grandchild would keep the probe's stderr and reply channel open for
  /// ever; the probe is confined before the plugin's constructor runs, so
  /// it cannot make one (issue 30).
  @Test func aPluginInAProbeCannotStartABackgroundProcess() throws {
    let dir = try TemporaryDirectory()
    let marker = dir.path + "/fork.result"
    let rejection = try probed(
      """
      pid_t child = fork();
      if (child == 0) { for (;;) pause(); }
      int error = errno;
      FILE *f = fopen("\(marker)", "w"); fprintf(f, "%d %d", (int)child, error); fclose(f);
      """, in: dir)
    #expect(
      rejection?.kind == .foreignSDKCopy, "the probe's own verdict, not a time-out: \(String(describing: rejection))")
    let result = try String(contentsOfFile: marker, encoding: .utf8).split(separator: " ").compactMap { Int32($0) }
    #expect(result == [-1, EPERM], "fork refused with EPERM: \(result)")
  }

  @Test func aHangingProbeDoesNotOutliveAHostKilledWhileWaitingForIt() throws {
    let dir = try TemporaryDirectory()
    let marker = dir.path + "/probe.pid"
    _ = try CPluginBuilder.plugin(
      constructor: "FILE *f = fopen(\"\(marker)\", \"w\"); fprintf(f, \"%d\", getpid()); fclose(f); for (;;) pause();",
      named: "hang.so", in: dir)
    let host = SpawnedProcess()
    host.executableURL = URL(fileURLWithPath: BuildProducts.vivarium)
    host.arguments = ["plugins", "--plugins", dir.path]
    host.standardOutput = FileHandle.nullDevice
    host.standardError = FileHandle.nullDevice
    // Its probe may write the marker (the tests' writable folder).
    host.environment = ProcessRunner.environment([:])
    try host.run()
    var probe: Int32?
    // Up to a generous two minutes for the host to start its probe.
    for _ in 0..<2400 where probe == nil {
      probe = (try? String(contentsOfFile: marker, encoding: .utf8)).flatMap { Int32($0) }
      if probe == nil { usleep(50_000) }
    }
    kill(host.processIdentifier, SIGKILL)
    host.waitUntilExit()
    let pid = try #require(probe, "the probe started")
    #expect(waitUntilGone(pid), "the probe outlived the host")
  }

  /// Whether process `pid` is gone (or a zombie) within a generous minute; kills it if not.
  private func waitUntilGone(_ pid: Int32) -> Bool {
    for _ in 0..<1200 {
      let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
      if state == nil || state?[2] == "Z" { return true }
      usleep(50_000)
    }
    kill(pid, SIGKILL)
    return false
  }

  @Test func aVerdictPrintedOnStdoutIsNotAPass() throws {
    let dir = try TemporaryDirectory()
    _ = try CPluginBuilder.plugin(
      constructor: #"printf("{\"rejection\":null}\n"); fflush(stdout); _exit(0);"#, named: "forger.so", in: dir)
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(#""reason" : "crashed""#), "\(result.stdout)")
    #expect(result.stdout.contains("status 0"), "how the probe ended: \(result.stdout)")
  }

  @Test func aReplyWithoutTheNonceIsNotAPass() throws {
    let dir = try TemporaryDirectory()
    _ = try CPluginBuilder.plugin(
      constructor: #"dprintf(3, "VIVARIUM-REPLY guess 18\n{\"rejection\":null}"); _exit(0);"#, named: "forger.so",
      in: dir)
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(#""reason" : "crashed""#), "\(result.stdout)")
  }

  @Test func floodingStdoutDoesNotReachTheHost() throws {
    let dir = try TemporaryDirectory()
    let rejection = try probed(
      "static char block[1 << 20]; memset(block, 'x', sizeof block); for (int i = 0; i < 64; i++) fwrite(block, 1, sizeof block, stdout);",
      in: dir)
    #expect(rejection?.kind == .foreignSDKCopy, "\(String(describing: rejection))")
  }

  @Test func floodingTheReplyChannelStopsTheProbe() throws {
    let dir = try TemporaryDirectory()
    let rejection = try probed(
      "static char block[1 << 16]; memset(block, 'x', sizeof block); for (;;) write(3, block, sizeof block);", in: dir)
    #expect(rejection?.kind == .crashed)
    #expect(rejection?.reasons.first?.contains("descriptor 3") == true, "\(String(describing: rejection))")
  }

  @Test func aCrashIsReportedWithTheFatalErrorLineAndStderrStaysBounded() throws {
    let dir = try TemporaryDirectory()
    let rejection = try probed(
      """
      static char block[1 << 16]; memset(block, 'x', sizeof block);
      for (int i = 0; i < 64; i++) write(2, block, sizeof block);
      fprintf(stderr, "\\nPlugin/Thing.swift:12: Fatal error: boom\\n"); __builtin_trap();
      """, in: dir)
    let reason = try #require(rejection?.reasons.first)
    #expect(rejection?.kind == .crashed)
    #expect(reason.contains("Plugin/Thing.swift:12: Fatal error: boom"), "its fatal-error line: \(reason)")
    #expect(reason.utf8.count < 1000)
  }

  /// A file whose code is damaged crashes inside the dynamic loader (which
  /// runs its constructors, in .text) before its entry point is called: the
  /// reason says it may be damaged and to rebuild it. A crash in the entry
  /// point is still blamed on the entry point.
  @Test @MainActor func aCrashInsideTheDynamicLoaderSaysTheFileMayBeDamaged() async throws {
    let dir = try TemporaryDirectory()
    let whole = try CPluginBuilder.plugin(.init(), named: "whole.so", in: dir)
    var bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let text = try #require(Self.section(".text", in: bytes))
    // 0xFF 0xFF is no x86-64 or AArch64 instruction.
    bytes.replaceSubrange(text, with: Data(repeating: 0xFF, count: text.count))
    let damaged = try dir.write("damaged.so", bytes)
    let inEntry = try CPluginBuilder.plugin(entryBody: "__builtin_trap(); return 0;", named: "entry.so", in: dir)
    let outcomes = PluginLoader(probe: probe).loadAll([damaged, inEntry])
    let refused = outcomes.compactMap { if case .rejected(let rejection) = $0 { rejection } else { nil } }
    try #require(refused.count == 2, "both are refused: \(outcomes)")
    let (corrupt, trapped) = (refused[0], refused[1])
    #expect(corrupt.kind == .crashed)
    let reason = corrupt.reasons.joined()
    // Where it crashed, and what to do.
    #expect(reason.contains("dynamic loader") && reason.contains("rebuild"), "\(reason)")
    #expect(trapped.kind == .crashed)
    #expect(trapped.reasons.joined().contains("factories()"), "\(trapped.reasons)")
    #expect(!trapped.reasons.joined().contains("dynamic loader"))
    // The same in a plugin process of its own, where `render` loads a
    // plugin the host knows from its manifest.
    let started = await PluginSupervisor.startAll(
      [damaged, inEntry],
      options: PluginProcessOptions(executable: BuildProducts.vivarium, responseLimit: TestServices.responseLimit))
    let failed = started.compactMap { if case .rejected(let rejection) = $0 { rejection } else { nil } }
    try #require(failed.count == 2, "both fail: \(started)")
    #expect(failed.map(\.kind) == [.crashed, .crashed])
    #expect(failed[0].reasons.joined().contains("dynamic loader"), "\(failed[0].reasons)")
    #expect(failed[0].reasons.joined().contains("rebuild"))
    #expect(failed[1].reasons.joined().contains("signal"), "\(failed[1].reasons)")
    #expect(!failed[1].reasons.joined().contains("dynamic loader"))
  }

  /// The bytes of the section named `name` in the ELF64 file `bytes`.
  private static func section(_ name: String, in bytes: Data) -> Range<Int>? {
    func integer(_ at: Int, _ size: Int) -> Int {
      (0..<size).reversed().reduce(0) { $0 << 8 | Int(bytes[bytes.startIndex + at + $1]) }
    }
    let (table, entrySize, count) = (integer(0x28, 8), integer(0x3A, 2), integer(0x3C, 2))
    let names = integer(table + integer(0x3E, 2) * entrySize + 24, 8)
    for index in 0..<count {
      let header = table + index * entrySize
      let nameStart = names + integer(header, 4)
      let nameEnd = bytes[nameStart...].firstIndex(of: 0) ?? nameStart
      if String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self) == name {
        let offset = integer(header + 24, 8)
        return offset..<(offset + integer(header + 32, 8))
      }
    }
    return nil
  }

  @Test func aProbeThatCrashesWhileLoadingLeavesNoLoadFolderBehind() throws {
    let dir = try TemporaryDirectory()
    let marker = dir.path + "/probe.pid"
    _ = try CPluginBuilder.plugin(
      constructor: "FILE *f = fopen(\"\(marker)\", \"w\"); fprintf(f, \"%d\", getpid()); fclose(f); raise(SIGSEGV);",
      named: "crash.so", in: dir)
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path])
    #expect(result.stdout.contains("crashed"), "\(result.stdout)")
    let pid = try String(contentsOfFile: marker, encoding: .utf8)
    let temporary = NSTemporaryDirectory()
    let left = try FileManager.default.contentsOfDirectory(atPath: temporary).filter {
      $0.hasPrefix("vivarium-load-") && $0.split(separator: "-").dropFirst(3).first.map(String.init) == pid
    }
    #expect(left.isEmpty, "\(left) in \(temporary)")
  }

  @Test func aPluginCallingExitWhileLoadingInProcessFailsTheCommand() throws {
    let dir = try TemporaryDirectory()
    _ = try CPluginBuilder.plugin(constructor: "exit(0);", named: "quitter.so", in: dir)
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path, "--in-process"])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("quitter.so") && result.stderr.contains("exit"),
      "the plugin, and what it did: \(result.stderr)")
  }

  @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")))
  func probesWorkWhenTheHostIsTheFirstProcessOfItsNamespace() throws {
    // As a container's entry point: the host is pid 1, its probes' parent.
    let result = try ProcessRunner.run(
      "/usr/bin/unshare",
      ["-pf", "--mount-proc", BuildProducts.vivarium, "plugins", "--plugins", BuildProducts.itemsList])
    #expect(result.stdout.contains("loaded    libItemsList.so"), "\(result.stdout)\(result.stderr)")
  }

  @Test func theChannelAcceptsOnlyWholeFramesWithTheNonceUpToTheFirstBadOne() {
    let payload = Data(#"{"rejection":null}"#.utf8)
    var frame = Data("VIVARIUM-REPLY n0nce \(payload.count)\n".utf8)
    frame.append(payload)
    #expect(ChildChannel.payloads(of: frame, nonce: "n0nce") == [payload])
    #expect(ChildChannel.payloads(of: frame + frame, nonce: "n0nce") == [payload, payload])
    #expect(ChildChannel.payloads(of: frame, nonce: "other") == [])
    #expect(ChildChannel.payloads(of: frame.dropLast(), nonce: "n0nce") == [])
    #expect(ChildChannel.payloads(of: frame + frame.dropLast(), nonce: "n0nce") == [payload])
    #expect(ChildChannel.payloads(of: frame + Data("x".utf8) + frame, nonce: "n0nce") == [payload])
    #expect(ChildChannel.payloads(of: payload, nonce: "n0nce") == [])
  }
}
