import Foundation
import Glibc
import VivariumSupport

/// Builds a plugin's Swift package when its sources change
/// (`vivarium run --watch --build PACKAGE_DIR`): it looks at `Package.swift`
/// and every file under `Sources/` when inotify tells of a change there
/// (``FileEvents``), and runs `swift build` at once when the files that
/// changed were saved and closed (or removed); one that changed otherwise
/// may still be being written, and is taken once it has held still for an
/// ``interval``. One build runs at a time: what changes during a build is
/// looked at when it ends, and builds again, named as any change is.
/// Without inotify it looks every interval and builds once a change has
/// held still for an interval. The plugin watcher then reloads the rebuilt
/// library, told when the build ends (``onEnd``).
@MainActor
package final class PackageBuilder {
  /// How a build ended.
  package struct Outcome: Sendable {
    /// Whether `swift build` succeeded.
    package let succeeded: Bool
    /// Its errors, when it failed: each once, as `File.swift:3:9: message`
    /// (``errors(in:)``).
    package let errors: [String]
    /// Its whole output, for the log.
    package let output: String
    /// Whether sources changed while it ran: another build starts at once.
    package internal(set) var overtaken = false
  }

  /// The package folder.
  package let directory: String
  /// Where SwiftPM puts the debug build's products.
  package var products: String { Self.products(in: directory) }

  /// Where SwiftPM puts the debug build's products of the package in `directory`.
  package nonisolated static func products(in directory: String) -> String { directory + "/.build/debug" }
  /// How often the sources are looked at, without inotify.
  package let interval: Duration
  /// When the newest source of the build under way (or last done) was
  /// saved: the start of the time from save to redraw.
  package private(set) var savedAt: Date?
  /// Called when a build starts, with the files that changed since the
  /// sources the last one started from.
  package var onStart: ([String]) -> Void = { _ in }
  /// Called when a build ends.
  package var onEnd: (Outcome) -> Void = { _ in }

  /// The sources as the last build (or the start) took them.
  private var known: [String: FileSignature] = [:]
  /// The sources at the last look that found them changed but not yet whole.
  private var settling: [String: FileSignature]?
  private var building = false
  /// The paths told whole (closed or moved in) while a build ran.
  private var closedWhileBuilding: Set<String> = []
  private var poller: Poller?
  private var events: FileEvents?
  /// The look after a change that was not closed has held still.
  private var recheck: Task<Void, Never>?
  /// Runs the build in `directory`, off the main actor; `swift build` but in tests.
  private let run: @Sendable (String) -> Outcome

  /// A builder for the package in `directory`, taking its sources as they are now.
  package convenience init(directory: String, interval: Duration = .milliseconds(200)) {
    self.init(directory: directory, interval: interval, run: PackageBuilder.swiftBuild(in:))
  }

  /// A builder that builds with `run` instead of `swift build`.
  init(directory: String, interval: Duration = .milliseconds(200), run: @escaping @Sendable (String) -> Outcome) {
    self.directory = directory
    self.interval = interval
    self.run = run
    known = signatures()
  }

  /// Starts looking at the sources, and builds when they changed since the
  /// last build (a save during ``buildNow()``): once the change has held
  /// still for an ``interval``, as for any change not told closed.
  package func start() {
    events = FileEvents(directories: [directory], trees: [directory + "/Sources"]) { [weak self] whole in
      self?.look(closed: whole)
    }
    look(closed: [])
    guard events == nil else { return }
    let poller = Poller(interval: interval) { [weak self] in self?.look(closed: []) }
    self.poller = poller
    poller.start()
  }

  /// Stops looking.
  package func stop() {
    events?.stop()
    events = nil
    poller?.stop()
    poller = nil
    recheck?.cancel()
    recheck = nil
  }

  /// One look: builds when the sources changed and each file that changed
  /// was `closed` after writing or moved in (``FileEvents/whole(_:in:)``),
  /// was removed, or has held still since the last look. During a build it
  /// only notes what was closed, for the look when the build ends.
  func look(closed: Set<String>) {
    recheck?.cancel()
    recheck = nil
    guard !building else {
      closedWhileBuilding.formUnion(closed)
      return
    }
    let now = signatures()
    let changed = Set(now.keys).union(known.keys).filter { now[$0] != known[$0] }.sorted()
    guard !changed.isEmpty else {
      settling = nil
      return
    }
    let whole = changed.allSatisfy { path in
      now[path] == nil || FileEvents.whole(path, in: closed) || settling?[path] == now[path]
    }
    guard whole else {
      settling = now
      // With inotify, no poll comes: look again once the change may have held still.
      guard events != nil else { return }
      recheck = Task { [weak self, interval] in
        try? await Task.sleep(for: interval)
        guard !Task.isCancelled else { return }
        self?.look(closed: [])
      }
      return
    }
    known = now
    settling = nil
    savedAt =
      changed.compactMap { path in
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
      }.max() ?? Date()
    build(changed)
  }

  private func build(_ changed: [String], again: Bool = false) {
    building = true
    underway = (changed, again)
    let directory = self.directory
    onStart(changed.map { $0.hasPrefix(directory + "/") ? String($0.dropFirst(directory.count + 1)) : $0 })
    let run = self.run
    Thread.detachNewThread {
      let outcome = run(directory)
      Task { @MainActor [weak self] in self?.finished(outcome) }
    }
  }

  /// The sources that changed for the build under way, and whether it is
  /// already the second build for them.
  private var underway: (changed: [String], again: Bool) = ([], false)

  private func finished(_ outcome: Outcome) {
    building = false
    var outcome = outcome
    outcome.overtaken = forgetSavedDuringBuild()
    // A build that succeeded without compiling a source saved for it took
    // it as built (SwiftPM's record of it was taken as true): it is built
    // once more, made to compile it.
    let missed = outcome.succeeded && !outcome.overtaken && !underway.again ? uncompiled(in: outcome.output) : []
    if !missed.isEmpty {
      Self.forgetBuilt(missed, products: products)
      // The sources as the build again starts from them, moved times and all.
      known = signatures()
      outcome.overtaken = true
    }
    onEnd(outcome)
    guard missed.isEmpty else {
      build(underway.changed, again: true)
      return
    }
    let closed = closedWhileBuilding
    closedWhileBuilding = []
    look(closed: closed)
  }

  /// The Swift sources under `Sources/` that changed for the build under
  /// way and that `output`, what `swift build` said, does not say it compiled.
  private func uncompiled(in output: String) -> [String] {
    let compiled = output.split(separator: "\n").filter { $0.contains(" Compiling ") || $0.hasPrefix("Compiling ") }
    return underway.changed.filter { path in
      guard path.hasPrefix(directory + "/Sources/"), path.hasSuffix(".swift"),
        FileManager.default.fileExists(atPath: path)
      else { return false }
      let name = PathName.lastComponent(path)
      return !compiled.contains { line in line.split(whereSeparator: { $0 == " " || $0 == "," }).contains { $0 == name }
      }
    }
  }

  /// Builds now, on the calling thread, before ``start()``: the first
  /// build, before anything is loaded. A source saved while it ran is built
  /// again once the builder has started.
  package func buildNow() -> Outcome {
    known = signatures()
    var outcome = run(directory)
    outcome.overtaken = forgetSavedDuringBuild()
    return outcome
  }

  /// Whether sources changed since the build that just ended started from
  /// ``known``. Each one changed is made to be compiled by the next build
  /// (``forgetBuilt(_:products:)``).
  private func forgetSavedDuringBuild() -> Bool {
    let now = signatures()
    let saved = Set(now.keys).union(known.keys).filter { now[$0] != known[$0] && now[$0] != nil }
    Self.forgetBuilt(saved.sorted(), products: products)
    return now != known
  }

  /// Makes the next `swift build` compile each of `paths` again. Each was
  /// saved while a build ran, maybe after the compiler read it, and
  /// SwiftPM can record it as built all the same: its record of a source
  /// is taken as the build ends, so a save in the middle of a build was
  /// left out of it and of the next build too (about one time in four,
  /// measured with a save at a random moment of a one-second build). A
  /// later modification time alone did not help: the record was still
  /// taken as true about one time in thirty. So each file's time is moved
  /// to now and, for a Swift source, its object file (named in the
  /// module's `output-file-map.json`) is removed: the compiler then
  /// compiles it whatever it recorded.
  nonisolated static func forgetBuilt(_ paths: [String], products: String) {
    guard !paths.isEmpty else { return }
    var real: Set<String> = []
    for path in paths {
      _ = utimensat(AT_FDCWD, path, nil, 0)
      if let resolved = realpath(path, nil) {
        real.insert(String(cString: resolved))
        free(resolved)
      }
    }
    guard let build = realpath(products, nil) else { return }
    let buildFolder = String(cString: build)
    free(build)
    let modules = (try? FileManager.default.contentsOfDirectory(atPath: products))?.filter { $0.hasSuffix(".build") }
    for module in modules ?? [] {
      let map = products + "/" + module + "/output-file-map.json"
      guard let data = FileManager.default.contents(atPath: map),
        let entries = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
      else { continue }
      for (source, outputs) in entries where real.contains(source) {
        guard let object = (outputs as? [String: Any])?["object"] as? String else { continue }
        // Only an object file of this build: whatever else the map names
        // (a path outside the build folder, through a link) stays.
        let folder = (object as NSString).deletingLastPathComponent
        guard object.hasSuffix(".o"), let resolved = realpath(folder, nil) else { continue }
        let inside = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard inside.hasPrefix(buildFolder + "/"), lstat(object, &info) == 0, info.st_mode & S_IFMT == S_IFREG
        else { continue }
        unlink(inside + "/" + (object as NSString).lastPathComponent)
      }
    }
  }

  /// Runs `swift build` in `directory` and waits for it, its output and
  /// errors read from one pipe. It is started with `posix_spawn` (through
  /// `env -C`, so that this process, whose threads share one working
  /// directory, never changes its own), not Foundation's `Process`, whose
  /// start reads past a buffer on this toolchain and can crash the host.
  package nonisolated static func swiftBuild(in directory: String) -> Outcome {
    func failed(_ reason: String) -> Outcome {
      Outcome(succeeded: false, errors: ["cannot run 'swift build' in \(directory): \(reason)"], output: "")
    }
    guard let pipe = ChildPipe.make() else {
      return failed("cannot create a pipe: \(String(cString: strerror(errno)))")
    }
    let (read, write) = (pipe.read, pipe.write)
    defer { close(read) }
    // The person's own environment: swift build is no child of the host's kind.
    let started = ChildProcess.spawn(
      "/usr/bin/env", ["-C", directory, "swift", "build"], [(write, 1), (write, 2)], asHostChild: false)
    close(write)
    let pid: pid_t
    switch started {
    case .success(let spawned): pid = spawned
    case .failure(let error): return failed(error.description)
    }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = Glibc.read(read, &buffer, buffer.count)
      if count > 0 {
        output += buffer[0..<count]
      } else if count < 0, errno == EINTR {
        continue
      } else {
        break
      }
    }
    var status: Int32 = 0
    var waited = waitpid(pid, &status, 0)
    while waited < 0, errno == EINTR { waited = waitpid(pid, &status, 0) }
    guard waited == pid else { return failed("cannot wait for it: \(String(cString: strerror(errno)))") }
    let text = String(decoding: output, as: UTF8.self)
    let ended =
      status & 0x7F == 0
      ? "exited with \((status >> 8) & 0xFF)" : "was ended by \(ChildProcess.name(signal: status & 0x7F))"
    let succeeded = status == 0
    let errors = succeeded ? [] : Self.errors(in: text)
    return Outcome(
      succeeded: succeeded, errors: succeeded ? [] : (errors.isEmpty ? ["swift build \(ended)"] : errors), output: text)
  }

  /// The errors `swift build` reported in `output`, each once, at most
  /// `limit`: a compiler's `/path/Sources/X/File.swift:30:28: error:
  /// expected ','` as `File.swift:30:28: expected ','`. The source lines it
  /// quotes under an error, and the same error told again by another of
  /// its jobs, are left out; lines of SwiftPM's own (`error: link command
  /// failed`) are taken only when no compiler error was told.
  package nonisolated static func errors(in output: String, limit: Int = 3) -> [String] {
    var located: [String] = []
    var other: [String] = []
    for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
      let text = line.trimmingCharacters(in: .whitespaces)
      if let range = text.range(of: ": error: "), let place = location(String(text[..<range.lowerBound])) {
        let error = "\(place): \(text[range.upperBound...])"
        if !located.contains(error) { located.append(error) }
      } else if text.hasPrefix("error: ") {
        let error = String(text.dropFirst("error: ".count))
        if !other.contains(error) { other.append(error) }
      }
    }
    return Array((located.isEmpty ? other : located).prefix(limit))
  }

  /// `/path/File.swift:30:28` as `File.swift:30:28`; nil when `text` is not
  /// a path followed by a line and a column.
  private nonisolated static func location(_ text: String) -> String? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]),
      line > 0, column > 0
    else { return nil }
    let path = parts.dropLast(2).joined(separator: ":")
    guard !path.isEmpty, !path.contains("|") else { return nil }
    return "\(PathName.lastComponent(path)):\(line):\(column)"
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
