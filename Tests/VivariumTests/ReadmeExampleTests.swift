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

  nonisolated static func commands(in page: String) -> [String] {
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
    let names = [
      "vivarium check", "vivarium check --app", "vivarium render", "vivarium new", "vivarium permissions grant",
      "vivarium permissions deny",
    ]
    return found.map { $0.trimmingCharacters(in: .whitespaces) }.filter { command in
      command.hasPrefix("vivarium ") && !names.contains(command) && !command.contains("~")
        // A server runs until it is stopped: only its help is an example to run.
        && (!command.hasPrefix("vivarium serve") || command.hasSuffix("--help"))
        && !command.contains("path/to")
        && !command.contains("Weather") && !command.contains("|") && !command.contains("…")
        && !command.split(separator: " ").dropFirst().contains { word in
          word.contains { $0.isUppercase } || word.hasPrefix("[") || word.hasPrefix("__") || word == "new"
        }
    }
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
}
