import Foundation
import Testing

/// The README's and the docs pages' own `vivarium` examples work as written:
/// every command in a code block or code span that names no placeholder (DIR,
/// URN, …), no file of the reader's own (a plugin they have yet to build) and
/// no internal command (`__zygote`, which the host starts itself).
/// A command that needs arguments, named alone in prose (`vivarium check`), is
/// a name, not an example; so is a server's, which runs until stopped.
@Suite("README examples")
@MainActor
struct ReadmeExampleTests {
  /// One example: the command, and the first page showing it.
  struct Example: Sendable, CustomTestStringConvertible {
    let page: String
    let command: String
    var testDescription: String { "\(page): \(command)" }
  }

  /// The README, then every page under docs/, relative to the repository.
  nonisolated static let pages: [String] = {
    let docs = (try? FileManager.default.contentsOfDirectory(atPath: BuildProducts.repository + "/docs")) ?? []
    return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
  }()

  nonisolated static let examples: [Example] = {
    var seen: Set<String> = []
    return pages.flatMap { page in commands(in: page).map { Example(page: page, command: $0) } }
      .filter { seen.insert($0.command).inserted }
  }()

  /// The `vivarium` examples of `page` that run as written.
  nonisolated static func commands(in page: String) -> [String] {
    let names = [
      "vivarium check", "vivarium check --app", "vivarium render", "vivarium new", "vivarium permissions grant",
      "vivarium permissions deny",
    ]
    return shown(in: page).filter { command in
      command.hasPrefix("vivarium ") && !names.contains(command) && !command.contains("~")
        // A server runs until it is stopped: only its help is an example to run.
        && (!command.hasPrefix("vivarium serve") || command.hasSuffix("--help"))
        // What a running app publishes: shown beside one (PluginActivityTests runs it).
        && !command.contains("--live")
        && !command.contains("path/to")
        && !command.contains("Weather") && !command.contains("|") && !command.contains("…")
        && !command.split(separator: " ").dropFirst().contains { word in
          word.contains { $0.isUppercase } || word.hasPrefix("[") || word.hasPrefix("__") || word == "new"
        }
    }
  }

  /// Every line of `page`'s shell blocks (its comment left out) and every
  /// code span, trimmed.
  nonisolated static func shown(in page: String) -> [String] {
    let text = (try? String(contentsOfFile: BuildProducts.repository + "/" + page, encoding: .utf8)) ?? ""
    var found: [String] = []
    var inShell = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inShell = line == "```sh"
        continue
      }
      if inShell {
        found.append(String(line.split(separator: "#", maxSplits: 1).first ?? ""))
      } else {
        found += line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
          .filter { $0.offset % 2 == 1 }.map { String($0.element) }
      }
    }
    return found.map { $0.trimmingCharacters(in: .whitespaces) }
  }

  /// The plugin directory Scripts/demo makes, relative to the repository.
  static let demoPlugins = ".build/demo-plugins"

  @Test func theReadmeAndEachPageShowRunnableExamples() {
    for page in ["README.md", "docs/using-the-app.md", "docs/checking.md", "docs/reference.md"] {
      #expect(Self.pages.contains(page), "\(Self.pages)")
      #expect(!Self.commands(in: page).isEmpty, "\(page) shows no runnable vivarium example")
    }
    #expect(Self.commands(in: "README.md").contains("vivarium render items:list"))
    #expect(Self.examples.count >= 10, "\(Self.examples)")
  }

  @Test(arguments: examples)
  func exampleRunsAsWritten(example: Example) throws {
    let command = example.command
    let arguments = command.split(separator: " ").dropFirst().map { $0.trimmingCharacters(in: ["'"]) }
    if arguments.contains(Self.demoPlugins) {
      // The reader ran the Quick start, whose Scripts/demo made it.
      let made = try ProcessRunner.run(
        BuildProducts.repository + "/Scripts/make-plugin-dir",
        [BuildProducts.directory, BuildProducts.repository + "/" + Self.demoPlugins])
      #expect(made.status == 0, "\(made.stderr)")
    }
    let dataDirectory = try TemporaryDirectory()
    let result = try ProcessRunner.vivarium(
      arguments, environment: ["VIVARIUM_DATA_DIR": dataDirectory.path], directory: BuildProducts.repository)
    #expect(result.status == 0, "\(example): \(result.stderr)")
  }

  /// The Quick start's test command is Scripts/test, and CI runs it. It is
  /// not run as written here: it runs `swift test`, this whole suite, which
  /// would start again from inside itself (and it may install a package).
  /// It runs with stand-ins for `swift`, `chromium`, `apt-get` and `sudo` on
  /// its PATH, which note what it would have run: `swift test` with its
  /// arguments, from the repository, and before it Chromium's install, only
  /// when no `chromium` is found (the package lists updated only if the
  /// install fails).
  @Test func theTestCommandRunsSwiftTestAfterInstallingChromiumIfMissing() throws {
    #expect(Self.shown(in: "README.md").contains("Scripts/test"))
    let ci = try String(contentsOfFile: BuildProducts.repository + "/.ci/run", encoding: .utf8)
    #expect(ci.split(separator: "\n").contains("Scripts/test"), "\(ci)")

    let bin = try TemporaryDirectory()
    let log = bin.path + "/ran"
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for tool in ["bash", "dirname", "id"] {
      let found = try #require(path.split(separator: ":").map { $0 + "/" + tool }.first { access($0, X_OK) == 0 })
      try FileManager.default.createSymbolicLink(atPath: bin.path + "/" + tool, withDestinationPath: found)
    }
    let note = "echo \"${0##*/} $*\" >> \(log)"
    try bin.write("swift", Data("#!/bin/sh\n\(note)\necho \"  in $PWD\" >> \(log)\n".utf8), mode: 0o755)
    try bin.write("sudo", Data("#!/bin/sh\nexec \"$@\"\n".utf8), mode: 0o755)
    // Refuses to install until the package lists are updated.
    try bin.write(
      "apt-get",
      Data(
        "#!/bin/sh\n\(note)\ncase $1 in update) : > \(bin.path)/updated;; install) test -e \(bin.path)/updated;; esac\n"
          .utf8), mode: 0o755)
    let chromium = try bin.write("chromium", Data("#!/bin/sh\n".utf8), mode: 0o755)
    let script = BuildProducts.repository + "/Scripts/test"

    let present = try ProcessRunner.run(script, ["--filter", "Browser"], environment: ["PATH": bin.path])
    #expect(present.status == 0, "\(present.stderr)")
    #expect(
      try String(contentsOfFile: log, encoding: .utf8)
        == "swift test --filter Browser\n  in \(BuildProducts.repository)\n")

    try FileManager.default.removeItem(atPath: chromium)
    try FileManager.default.removeItem(atPath: log)
    let missing = try ProcessRunner.run(script, [], environment: ["PATH": bin.path])
    #expect(missing.status == 0, "\(missing.stderr)")
    let install = "apt-get install -y --no-install-recommends chromium\n"
    #expect(
      try String(contentsOfFile: log, encoding: .utf8)
        == install + "apt-get update\n" + install + "swift test\n  in \(BuildProducts.repository)\n")
  }
}
