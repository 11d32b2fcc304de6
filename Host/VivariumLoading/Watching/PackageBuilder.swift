import Foundation
import VivariumSupport

/// Builds a plugin's Swift package when its sources change
/// (`vivarium run --watch --build PACKAGE_DIR`): it looks at `Package.swift`
/// and every file under `Sources/` when inotify says one was saved
/// (``FileEvents``), and runs `swift build` there at once, one build at a
/// time (a change during a build starts another after it). Without inotify
/// it looks every ``interval`` and builds once a change has held still for
/// an interval. The plugin watcher then reloads the rebuilt library, told
/// when the build ends (``onEnd``).
@MainActor
public final class PackageBuilder {
  /// How a build ended.
  public struct Outcome: Sendable {
    /// Whether `swift build` succeeded.
    public let succeeded: Bool
    /// The first lines of its errors, when it failed.
    public let errors: [String]
    /// Its whole output, for the log.
    public let output: String
  }

  /// The package folder.
  public let directory: String
  /// Where SwiftPM puts the debug build's products.
  public var products: String { Self.products(in: directory) }

  /// Where SwiftPM puts the debug build's products of the package in `directory`.
  public nonisolated static func products(in directory: String) -> String { directory + "/.build/debug" }
  /// How often the sources are looked at, without inotify.
  public let interval: Duration
  /// When the newest source of the build under way (or last done) was
  /// saved: the start of the time from save to redraw.
  public private(set) var savedAt: Date?
  /// Called when a build starts, with the files that changed.
  public var onStart: ([String]) -> Void = { _ in }
  /// Called when a build ends.
  public var onEnd: (Outcome) -> Void = { _ in }

  private var known: [String: FileSignature] = [:]
  private var settling: [String: FileSignature]?
  private var building = false
  private var again = false
  private var poller: Poller?
  private var events: FileEvents?

  /// A builder for the package in `directory`, taking its sources as they are now.
  public init(directory: String, interval: Duration = .milliseconds(200)) {
    self.directory = directory
    self.interval = interval
    known = signatures()
  }

  /// Starts looking at the sources.
  public func start() {
    events = FileEvents(directories: [directory], trees: [directory + "/Sources"]) { [weak self] in
      self?.look(whole: true)
    }
    guard events == nil else { return }
    let poller = Poller(interval: interval) { [weak self] in self?.look() }
    self.poller = poller
    poller.start()
  }

  /// Stops looking.
  public func stop() {
    events?.stop()
    events = nil
    poller?.stop()
    poller = nil
  }

  /// One look: builds when the sources changed and, unless they are known
  /// to be `whole` (saved and closed), then held still until the next look.
  private func look(whole: Bool = false) {
    let now = signatures()
    guard now != known else {
      settling = nil
      return
    }
    guard whole || settling == now else {
      settling = now
      return
    }
    let changed = Set(now.keys).union(known.keys).filter { now[$0] != known[$0] }.sorted()
    known = now
    settling = nil
    savedAt =
      changed.compactMap { path in
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
      }.max() ?? Date()
    build(changed)
  }

  private func build(_ changed: [String]) {
    guard !building else {
      again = true
      return
    }
    building = true
    let directory = self.directory
    onStart(changed.map { $0.hasPrefix(directory + "/") ? String($0.dropFirst(directory.count + 1)) : $0 })
    Thread.detachNewThread {
      let outcome = PackageBuilder.swiftBuild(in: directory)
      Task { @MainActor [weak self] in self?.finished(outcome) }
    }
  }

  private func finished(_ outcome: Outcome) {
    building = false
    onEnd(outcome)
    if again {
      again = false
      build([])
    }
  }

  /// Runs `swift build` in `directory` and waits for it.
  public nonisolated static func swiftBuild(in directory: String) -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swift", "build"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return Outcome(
        succeeded: false, errors: ["cannot run 'swift build' in \(directory): \(error.localizedDescription)"],
        output: "")
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let succeeded = process.terminationStatus == 0
    // `/path/Sources/X/File.swift:30:28: error: expected ','` as `File.swift:30:28: expected ','`.
    let errors = output.split(separator: "\n").filter { $0.contains("error: ") }.prefix(3).map { line in
      let parts = line.components(separatedBy: ": error: ")
      guard parts.count == 2 else { return String(line) }
      return "\(PathName.lastComponent(parts[0])): \(parts[1])"
    }
    return Outcome(
      succeeded: succeeded,
      errors: succeeded ? [] : (errors.isEmpty ? ["swift build exited with \(process.terminationStatus)"] : errors),
      output: output)
  }

  /// `Package.swift` and every file under `Sources/`, with their signatures.
  private func signatures() -> [String: FileSignature] {
    var found: [String: FileSignature] = [:]
    let manifest = directory + "/Package.swift"
    found[manifest] = FileSignature(manifest)
    let sources = directory + "/Sources"
    if let walker = FileManager.default.enumerator(atPath: sources) {
      while let relative = walker.nextObject() as? String {
        let path = sources + "/" + relative
        if let signature = FileSignature(path) { found[path] = signature }
      }
    }
    return found
  }
}
