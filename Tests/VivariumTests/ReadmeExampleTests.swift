import Foundation
import Testing

/// The README's own `vivarium` examples work as written: every command in a
/// code block or code span that names no placeholder (DIR, URN, …) and no
/// file of the reader's own (a plugin they have yet to build). A command
/// that needs arguments, named alone in prose (`vivarium check`), is a name,
/// not an example.
@Suite("README examples")
@MainActor
struct ReadmeExampleTests {
  nonisolated static let commands: [String] = {
    let readme = (try? String(contentsOfFile: BuildProducts.repository + "/README.md", encoding: .utf8)) ?? ""
    var found: [String] = []
    var inShell = false
    for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
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
    let names = ["vivarium check", "vivarium check --app", "vivarium render", "vivarium new"]
    return found.map { $0.trimmingCharacters(in: .whitespaces) }.filter { command in
      command.hasPrefix("vivarium ") && !names.contains(command) && !command.contains("~")
        && !command.contains("path/to")
        && !command.contains("Weather") && !command.contains("|") && !command.contains("…")
        && !command.split(separator: " ").dropFirst().contains { word in
          word.contains { $0.isUppercase } || word.hasPrefix("[") || word == "new"
        }
    }
  }()

  /// The plugin directory Scripts/demo makes, relative to the repository.
  static let demoPlugins = ".build/demo-plugins"

  @Test func theReadmeShowsRunnableExamples() {
    #expect(Self.commands.contains("vivarium render items:list"), "\(Self.commands)")
    #expect(Self.commands.count >= 4, "\(Self.commands)")
  }

  @Test(arguments: commands)
  func exampleRunsAsWritten(command: String) throws {
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
    #expect(result.status == 0, "\(command): \(result.stderr)")
  }
}
