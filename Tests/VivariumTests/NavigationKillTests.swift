import Foundation
import Glibc
import Testing

@testable import VivariumRuntime
@testable import VivariumSupport

/// `kill -9` of the host at any moment, a save of where the person is under
/// way or not, leaves a saved state the next start loads, and nothing the
/// next start trips on.
@Suite("Killed while saving where you are")
struct NavigationKillTests {
  /// The screens the script below shows, one of which must be saved.
  private static let stacks = [["items:list"], ["items:list", "items:detail:1"], ["items:list", "items:detail:2"]]
  /// Every command changes the main stack, so every one saves it; each
  /// draws at least two lines (`> command` and a header), so the output
  /// has over 2,000 lines before the host waits for more.
  private static let script = (1...500).map { "open items:detail:\($0 % 2 + 1)\nback\n" }.joined()

  private func temporaries(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(AtomicFile.isTemporary)
  }

  /// Starts `vivarium run` on `plugins` reading the script from a pipe kept
  /// open (so it never quits by itself), reads its output until `lines` lines
  /// have come (or it ends), kills it with SIGKILL, and returns the lines
  /// read. Runs off the main actor: the reading blocks.
  private func runAndKill(after lines: Int, plugins: String, data: String) throws -> Int {
    let host = SpawnedProcess()
    host.executableURL = URL(fileURLWithPath: BuildProducts.vivarium)
    host.arguments = ["run", "--plugins", plugins, "--data", data, "--start", "items:list"]
    host.environment = ProcessRunner.environment(["VIVARIUM_NOW": "2026-11-21T12:00:00Z", "COLUMNS": "80"])
    let input = Pipe()
    let output = Pipe()
    host.standardInput = input
    host.standardOutput = output
    host.standardError = FileHandle.nullDevice
    // Written before the host starts: the pipe holds it all, and a host that
    // ended early cannot make the write raise SIGPIPE.
    input.fileHandleForWriting.write(Data(Self.script.utf8))
    try host.run()
    var read = 0
    while read < lines {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      read += chunk.count(where: { $0 == UInt8(ascii: "\n") })
    }
    kill(host.processIdentifier, SIGKILL)
    host.waitUntilExit()
    try input.fileHandleForWriting.close()
    try output.fileHandleForReading.close()
    #expect(host.terminationReason == .uncaughtSignal && host.terminationStatus == SIGKILL, "ended before the kill")
    return read
  }

  @Test func aHostKilledAtAnyMomentLeavesAStateTheNextStartLoads() async throws {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    let store = NavigationStore(dataDirectory: data.path, directories: [plugins.path])
    let folder = PathName.parent(store.path)
    // The first line is the app's name; from the second, screens, each
    // drawn after the change it shows was saved.
    for lines in [1, 2, 9, 40, 150, 600, 1_500] {
      let read = try runAndKill(after: lines, plugins: plugins.path, data: data.path)
      switch NavigationStore(dataDirectory: data.path, directories: [plugins.path]).load() {
      case .success(let state?):
        #expect(Self.stacks.contains(state.layers.flatMap { $0.map(\.urn) }), "\(state)")
      case .success(nil):
        #expect(read < 2, "a screen was drawn after \(read) lines, so one was saved")
      case .failure(let error):
        Issue.record("killed after \(read) lines of output: \(error)")
      }
      // The next start (which takes the data directory) leaves no temporary file.
      await MainActor.run { _ = HostServices(dataDirectory: data.path) }
      #expect(temporaries(in: folder).isEmpty)
    }
  }

  @Test @MainActor func aSaveCutShortLeavesTheLastStateAndTheNextStartRemovesWhatItLeft() throws {
    let data = try TemporaryDirectory()
    let store = NavigationStore(dataDirectory: data.path, directories: ["/plugins"])
    let saved = NavigationState(layers: [[.init(urn: "items:list", arguments: [], slots: [])]])
    try store.save(saved)
    let next = NavigationState(layers: [[.init(urn: "items:detail:1", arguments: [], slots: [])]])
    let bytes = try JSONEncoder().encode(next)
    #expect(throws: (any Error).self) { try AtomicFile.write(bytes, to: store.path, fault: .crash(afterBytes: 9)) }
    let folder = PathName.parent(store.path)
    #expect(temporaries(in: folder).count == 1, "the cut-short write left its temporary file")
    #expect(try NavigationStore(dataDirectory: data.path, directories: ["/plugins"]).load().get() == saved)

    _ = HostServices(dataDirectory: data.path)
    #expect(temporaries(in: folder).isEmpty)
    #expect(try NavigationStore(dataDirectory: data.path, directories: ["/plugins"]).load().get() == saved)
  }
}
