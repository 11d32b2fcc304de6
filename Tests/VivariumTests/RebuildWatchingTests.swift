import Foundation
import Glibc
import Synchronization
import Testing

@testable import VivariumLoading

/// `vivarium run --watch --build` without `swift build`: the sources a
/// build starts from and what it names, the products taken only when whole,
/// and a failed build's errors each once.
@Suite("Building and reloading on save")
@MainActor
struct RebuildWatchingTests {
  /// Lets the main actor run until `done` holds, or 60 s pass (a missing
  /// event must fail the test, not hang it).
  private func wait(until done: () -> Bool) async throws {
    for _ in 0..<6000 where !done() { try await Task.sleep(for: .milliseconds(10)) }
  }

  /// Lets the main actor run for `milliseconds`: events told in that time are taken.
  private func settle(_ milliseconds: Int = 300) async throws {
    try await Task.sleep(for: .milliseconds(milliseconds))
  }

  /// A linker that makes its output, sizes it and fills it in place (as
  /// gold does) is told by inotify first when it makes the file. The file
  /// is reported once it is closed, whole, and not before; had it been
  /// taken when made, the whole one, with the same size and (the clock
  /// being coarse) time, would never be seen as changed.
  @Test func aLibraryFilledInPlaceIsReportedWhenClosedNotWhenMade() async throws {
    let products = try TemporaryDirectory()
    let path = products.path + "/libNotes.so"
    let whole = Data((0..<256 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
    var reported: [Data] = []
    let watcher = PluginWatcher(directories: [products.path], interval: .seconds(3600)) { changed in
      reported.append((try? Data(contentsOf: URL(fileURLWithPath: changed))) ?? Data())
    }
    watcher.start()
    defer { watcher.stop() }

    let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o755)
    try #require(descriptor >= 0)
    #expect(ftruncate(descriptor, off_t(whole.count)) == 0)
    let half = whole.count / 2
    #expect(whole.withUnsafeBytes { write(descriptor, $0.baseAddress, half) } == half)
    var made = stat()
    #expect(fstat(descriptor, &made) == 0)
    try await settle()
    #expect(reported.isEmpty, "a library made but not yet closed may be half written")

    #expect(
      whole.withUnsafeBytes { write(descriptor, $0.baseAddress! + half, whole.count - half) } == whole.count - half)
    // The time the file had half written, as a coarse clock may leave it.
    var times = [made.st_atim, made.st_mtim]
    #expect(futimens(descriptor, &times) == 0)
    #expect(close(descriptor) == 0)
    try await wait { !reported.isEmpty }
    try await settle(50)
    #expect(reported.count == 1)
    #expect(reported.last == whole, "the library as the linker closed it")
  }

  /// A file that changed without being closed (a link made in place) is
  /// reported once it has held still for an interval, without a poll.
  @Test func aLibraryChangedWithoutACloseIsReportedOnceItHoldsStill() async throws {
    let products = try TemporaryDirectory()
    let target = try products.write("build-1.bin", Data("one".utf8))
    var reported: [String] = []
    let watcher = PluginWatcher(directories: [products.path], interval: .milliseconds(100)) { reported.append($0) }
    watcher.start()
    defer { watcher.stop() }
    #expect(symlink(target, products.path + "/libNotes.so") == 0)
    try await wait { !reported.isEmpty }
    #expect(reported == [products.path + "/libNotes.so"])
  }

  /// A package whose build is run by the test: each build waits until the
  /// test lets it end.
  final class Package: Sendable {
    let directory: TemporaryDirectory
    /// Builds asked for, and how many the test has let end.
    let builds = Mutex((started: 0, released: 0))

    init() throws {
      directory = try TemporaryDirectory()
      try directory.write("Package.swift", Data("// swift-tools-version: 6.0\n".utf8))
      try FileManager.default.createDirectory(
        atPath: directory.path + "/Sources/Notes", withIntermediateDirectories: true)
      try directory.write("Sources/Notes/NotesPresenter.swift", Data("let title = \"Notes\"\n".utf8))
      try directory.write("Sources/Notes/NotesView.swift", Data("let width = 1\n".utf8))
      // What SwiftPM leaves after a build: the module's map from each
      // source (by its real path) to its outputs, and the objects.
      let real = try #require(realpath(directory.path, nil))
      defer { free(real) }
      let module = ".build/debug/Notes.build"
      try FileManager.default.createDirectory(
        atPath: directory.path + "/" + module, withIntermediateDirectories: true)
      var map: [String: [String: String]] = ["": ["swift-dependencies": "primary.swiftdeps"]]
      for name in ["NotesPresenter", "NotesView"] {
        try directory.write(module + "/\(name).swift.o", Data("object".utf8))
        map[String(cString: real) + "/Sources/Notes/\(name).swift"] = ["object": object(name)]
      }
      try directory.write(module + "/output-file-map.json", try JSONEncoder().encode(map))
    }

    /// Where the build left the object file of `name`.swift.
    func object(_ name: String) -> String { directory.path + "/.build/debug/Notes.build/\(name).swift.o" }

    /// A build: counted, ended when the test releases it.
    func run(_ directory: String) -> PackageBuilder.Outcome {
      let number = builds.withLock { builds in
        builds.started += 1
        return builds.started
      }
      while builds.withLock({ $0.released < number }) { usleep(1000) }
      return PackageBuilder.Outcome(succeeded: true, errors: [], output: output.withLock { $0 })
    }

    /// What each build says: by default that it compiled both sources.
    let output = Mutex("[6/13] Compiling Notes NotesPresenter.swift, NotesView.swift\nBuild complete!")

    var started: Int { builds.withLock { $0.started } }
    func release() { builds.withLock { $0.released += 1 } }

    /// Saves `name` under `Sources/Notes` as an editor does: written in place and closed.
    func save(_ name: String, _ text: String) throws {
      try Data(text.utf8).write(to: URL(fileURLWithPath: directory.path + "/Sources/Notes/" + name))
    }
  }

  /// A save while a build runs builds again when it ends, naming the file
  /// saved then (not an empty list); a build with no save during it is
  /// followed by none.
  @Test func aSaveDuringABuildBuildsAgainNamingWhatChanged() async throws {
    let package = try Package()
    defer { for _ in 0..<4 { package.release() } }
    let builder = PackageBuilder(directory: package.directory.path, interval: .seconds(3600), run: package.run)
    var starts: [[String]] = []
    var ends = 0
    builder.onStart = { starts.append($0) }
    builder.onEnd = { _ in ends += 1 }
    builder.start()
    defer { builder.stop() }

    try package.save("NotesPresenter.swift", "let title = \"Edit 0\"\n")
    try await wait { package.started == 1 }
    #expect(starts == [["Sources/Notes/NotesPresenter.swift"]])

    try package.save("NotesView.swift", "let width = 2\n")
    let view = package.directory.path + "/Sources/Notes/NotesView.swift"
    let saved = try #require(FileSignature(view))
    try await settle()
    #expect(package.started == 1, "one build at a time")
    package.release()
    try await wait { package.started == 2 }
    #expect(starts == [["Sources/Notes/NotesPresenter.swift"], ["Sources/Notes/NotesView.swift"]])
    // Saved while the build finished: its time is moved past the build's,
    // and its object file is removed, so that an incremental build cannot
    // take it as built; the object of a file not saved then stays.
    #expect(try #require(FileSignature(view)).modified > saved.modified)
    #expect(!FileManager.default.fileExists(atPath: package.object("NotesView")))
    #expect(FileManager.default.fileExists(atPath: package.object("NotesPresenter")))

    package.release()
    try await wait { ends == 2 }
    try await settle()
    #expect(package.started == 2, "nothing changed during the second build")
  }

  /// A build that succeeds without compiling the source saved for it (as
  /// SwiftPM did when it took its record of the file as true) is run once
  /// more, with the source's object removed; a second such build is not
  /// run again and again.
  @Test func aBuildThatCompiledNothingOfTheSaveBuildsOnceMore() async throws {
    let package = try Package()
    defer { for _ in 0..<4 { package.release() } }
    package.output.withLock { $0 = "[5/11] Emitting module Notes\nBuild complete! (0.24s)" }
    let builder = PackageBuilder(directory: package.directory.path, interval: .seconds(3600), run: package.run)
    var ends: [Bool] = []
    builder.onEnd = { ends.append($0.overtaken) }
    builder.start()
    defer { builder.stop() }

    try package.save("NotesPresenter.swift", "let title = \"Edit 0\"\n")
    try await wait { package.started == 1 }
    package.release()
    try await wait { package.started == 2 }
    #expect(!FileManager.default.fileExists(atPath: package.object("NotesPresenter")))
    #expect(FileManager.default.fileExists(atPath: package.object("NotesView")))
    package.release()
    try await wait { ends.count == 2 }
    try await settle()
    #expect(package.started == 2)
    #expect(ends == [true, false])
  }

  /// What SwiftPM's map of a module names is removed only when it is an
  /// object file in the build folder: a map naming a file elsewhere (a
  /// person's own, say) leaves it alone.
  @Test func onlyObjectFilesInTheBuildFolderAreRemoved() throws {
    let package = try Package()
    let real = try #require(realpath(package.directory.path, nil))
    let root = String(cString: real)
    free(real)
    let outside = try package.directory.write("precious.o", Data("a file of the person's".utf8))
    let notObject = try package.directory.write(".build/debug/Notes.build/NotesView.swiftdeps", Data("deps".utf8))
    let map: [String: [String: String]] = [
      root + "/Sources/Notes/NotesPresenter.swift": ["object": outside],
      root + "/Sources/Notes/NotesView.swift": ["object": notObject],
    ]
    try package.directory.write(".build/debug/Notes.build/output-file-map.json", try JSONEncoder().encode(map))
    PackageBuilder.forgetBuilt(
      [
        package.directory.path + "/Sources/Notes/NotesPresenter.swift",
        package.directory.path + "/Sources/Notes/NotesView.swift",
      ],
      products: PackageBuilder.products(in: package.directory.path))
    #expect(FileManager.default.fileExists(atPath: outside))
    #expect(FileManager.default.fileExists(atPath: notObject))
  }

  /// A save during the first build, made before the builder starts
  /// looking, is built once it starts: the first build cannot have taken
  /// it, and no event will tell of it again.
  @Test func aSaveDuringTheFirstBuildIsBuiltOnceTheBuilderStarts() async throws {
    let package = try Package()
    defer { for _ in 0..<3 { package.release() } }
    let builder = PackageBuilder(directory: package.directory.path, interval: .milliseconds(50), run: package.run)
    var starts: [[String]] = []
    builder.onStart = { starts.append($0) }
    let first = Task.detached {
      while package.started < 1 { usleep(1000) }
      try package.save("NotesPresenter.swift", "let title = \"Edit 0\"\n")
      package.release()
    }
    let outcome = builder.buildNow()
    try await first.value
    #expect(outcome.overtaken)
    #expect(!FileManager.default.fileExists(atPath: package.object("NotesPresenter")))
    builder.start()
    defer { builder.stop() }
    try await wait { package.started == 2 }
    #expect(starts == [["Sources/Notes/NotesPresenter.swift"]])
  }

  /// `swift build`'s output for one error: the compiler tells it, quoting
  /// the source, once for each of its jobs, and SwiftPM adds its own lines.
  @Test func aFailedBuildsErrorIsToldOnceWithItsPlace() {
    let error = """
      /tmp/notes/Sources/Notes/NotesPresenter.swift:30:28: error: expected ',' separator
      28 |   func viewDidLoad() {
      29 |     view?.show(
      30 |       title: "Edit 0" x)
         |                            `- error: expected ',' separator
      31 |   }

      """
    let output =
      "[1/4] Compiling Notes NotesPresenter.swift\n" + error
      + "[2/4] Emitting module Notes\n" + error
      + "error: emit-module command failed with exit code 1 (use -v to see invocation)\n"
      + "/tmp/notes/Sources/Notes/NotesView.swift:3:1: error: cannot find 'x' in scope\n"
    #expect(
      PackageBuilder.errors(in: output) == [
        "NotesPresenter.swift:30:28: expected ',' separator", "NotesView.swift:3:1: cannot find 'x' in scope",
      ])
    #expect(
      PackageBuilder.errors(
        in: "error: link command failed with exit code 1\nerror: link command failed with exit code 1\n")
        == ["link command failed with exit code 1"])
  }

  /// `swift build` is started (with posix_spawn, not Foundation's Process)
  /// and waited for; its exit and its errors are told, never a crash.
  @Test func swiftBuildIsRunAndItsFailureTold() throws {
    let empty = try TemporaryDirectory()
    let noPackage = PackageBuilder.swiftBuild(in: empty.path)
    #expect(!noPackage.succeeded)
    #expect(!noPackage.errors.isEmpty && noPackage.output.contains("Package.swift"), "\(noPackage)")
    let missing = PackageBuilder.swiftBuild(in: empty.path + "/missing")
    // env -C exits 125 when it cannot enter the directory.
    #expect(!missing.succeeded && missing.errors == ["swift build exited with 125"], "\(missing)")
  }
}
