import Foundation
import Testing
import ViperKitHosting
import ViperKitTestKit
import VivariumTools

/// Mistakes a newcomer makes get a message and a non-zero exit, and output
/// fits the terminal it is read on.
@Suite("vivarium command-line mistakes and widths")
@MainActor
struct CommandLineMistakesTests {
  @Test func aMisspeltCommandGetsTheClosestOne() throws {
    let result = try ProcessRunner.vivarium(["rnder", "items:list"])
    #expect(result.status == 2)
    // Wording matters: the first line a newcomer sees for a typo names it and offers the command meant.
    #expect(result.stderr.contains("unknown command 'rnder'; did you mean 'render'?"), "\(result.stderr)")
    let help = try ProcessRunner.vivarium(["help", "chek"])
    #expect(help.status == 2)
    #expect(help.stderr.contains("'chek'") && help.stderr.contains("'check'"), "\(help.stderr)")
  }

  /// A working directory deleted under the shell resolves to nothing: the
  /// walk up a relative path must stop at ".", not circle there for good.
  @Test func newInADeletedWorkingDirectoryEndsWithAnError() throws {
    let dir = try TemporaryDirectory()
    let script = "mkdir gone && cd gone && rmdir ../gone && exec timeout 60 \"$0\" new Foo --urn foo:bar"
    let result = try ProcessRunner.run(
      "/bin/sh", ["-c", script, BuildProducts.vivarium], directory: dir.path)
    #expect(result.status == 1, "124 is a hang cut short: \(result.stderr)")
    #expect(result.stderr.contains("vivarium new: error:"), "\(result.stderr)")
  }

  @Test func aMisspeltOptionGetsTheClosestOne() throws {
    let result = try ProcessRunner.vivarium(["render", "items:list", "--jsn"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("'--jsn'") && result.stderr.contains("'--json'"), "\(result.stderr)")
  }

  @Test func aCommandCutShortOrAMisspeltMainOptionGetsItsCompletion() throws {
    let short = try ProcessRunner.vivarium(["rout"])
    #expect(short.status == 2)
    #expect(short.stderr.contains("'routes'"), "\(short.stderr)")
    let option = try ProcessRunner.vivarium(["--verison"])
    #expect(option.status == 2)
    #expect(option.stderr.contains("'--verison'") && option.stderr.contains("'--version'"), "\(option.stderr)")
  }

  @Test func routesFitsEightyColumnsWhenPiped() throws {
    let result = try ProcessRunner.vivarium(["routes"])
    #expect(result.status == 0)
    let wide = result.stdout.split(separator: "\n").filter { $0.count > 80 }
    #expect(wide.isEmpty, "\(wide)")
  }

  @Test func anEmptyPluginPathEntryIsNamedInItsRow() throws {
    let result = try ProcessRunner.vivarium(
      ["plugins"], environment: ["VIVARIUM_PLUGIN_PATH": BuildProducts.directory + ":"])
    let row = result.stdout.split(separator: "\n").first {
      $0.contains("(empty entry)") && $0.contains("relative-path")
    }
    #expect(row != nil, "\(result.stdout)")
    #expect(!result.stdout.split(separator: "\n").contains { $0.allSatisfy(\.isWhitespace) })
  }

  @Test func helpHelpPrintsTheMainHelp() throws {
    let main = try ProcessRunner.vivarium(["--help"])
    for arguments in [["help", "--help"], ["help", "help"], ["help"]] {
      let result = try ProcessRunner.vivarium(arguments)
      #expect(result.status == 0, "\(arguments)")
      #expect(result.stdout == main.stdout)
    }
  }

  /// Each command's help is measured in CommandLineTests.everyCommandHasHelp.
  @Test func mainHelpFitsEightyColumns() throws {
    let result = try ProcessRunner.vivarium(["--help"])
    let long = result.stdout.split(separator: "\n").filter { $0.count > 80 }
    #expect(long.isEmpty, "\(long)")
  }

  @Test(arguments: [["nosuch"], ["biuld"], ["build.nosuch"]])
  func aCheckPatternMatchingNothingIsAUsageError(patterns: [String]) throws {
    for option in ["--only", "--skip"] {
      let result = try ProcessRunner.vivarium(["check", BuildProducts.itemsList, option, patterns[0]])
      #expect(result.status == 2)
      #expect(result.stdout.isEmpty)
      #expect(result.stderr.contains("\(option) '\(patterns[0])'"), "\(result.stderr)")
    }
    let suggested = try ProcessRunner.vivarium(["check", "--list", "--only", "biuld"])
    #expect(suggested.status == 2)
    #expect(suggested.stderr.contains("'build'"), "\(suggested.stderr)")
  }

  @Test func checkListFollowsOnlyAndSkip() throws {
    let result = try ProcessRunner.vivarium(["check", "--list", "--json", "--only", "build", "--skip", "build.minimal"])
    #expect(result.status == 0, "\(result.stderr)")
    let listed = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    let names = listed.compactMap { $0["name"] as? String }
    let expected = ConformanceCheck.all.map(\.name).filter { $0.hasPrefix("build.") && $0 != "build.minimal" }
    #expect(names == expected)
    #expect(!names.isEmpty)
  }

  @Test(arguments: [
    ["routes"], ["render", "items:list"], ["graph"], ["run", "--start", "items:list"],
    ["render", "items:list", "--json"],
  ])
  func aMissingPluginDirectoryFails(arguments: [String]) throws {
    let result = try ProcessRunner.vivarium(arguments + ["--plugins", "/no/such/plugins"])
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("'/no/such/plugins'"), "\(result.stderr)")
    if arguments == ["routes"] {
      // Wording matters: the one line a newcomer sees for a mistyped plugin directory.
      #expect(
        result.stderr
          == "vivarium routes: error: there is no plugin directory or file '/no/such/plugins' (given with --plugins); check the path\n"
      )
    }
  }

  @Test func pluginsKeepsTheRowOfAMissingDirectoryAndFails() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path, "--plugins", "/no/such/plugins"])
    #expect(result.status == 1)
    #expect(result.stdout.contains("rejected  plugins"), "\(result.stdout)")
    #expect(result.stdout.contains("loaded    libItemsList.so"))
    #expect(result.stderr.contains("'/no/such/plugins'"))
  }

  @Test func countsAreSingularForOne() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let result = try ProcessRunner.vivarium(["routes", "--plugins", dir.path])
    #expect(result.stdout.hasSuffix("\n1 module\n"), "\(result.stdout)")
    let plugins = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path])
    #expect(plugins.stdout.hasSuffix("1 loaded (1 from the registry cache), 0 rejected, 0 URN conflicts\n"))
  }

  @Test(arguments: [40, 120])
  func renderFollowsColumns(columns: Int) throws {
    let result = try ProcessRunner.vivarium(["render", "items:list"], environment: ["COLUMNS": "\(columns)"])
    #expect(result.status == 0, "\(result.stderr)")
    let widest = result.stdout.split(separator: "\n").map(\.count).max() ?? 0
    // List rows are drawn as wide as the screen.
    #expect(widest == columns, "\(result.stdout)")
  }

  @Test func checkDetailsUseTheWholeWidth() throws {
    let message = String(repeating: "word ", count: 30)
    let report = CheckReport(
      strictness: 1,
      plugins: [
        .init(
          path: "/p.so", results: [CheckResult(check: "load.open", status: .passed, module: nil, message: message)])
      ])
    let widths = [80, 120].map { width in report.text(style: .plain, width: width).split(separator: "\n")[1].count }
    #expect(widths == [80, 120])
    // Without a width (a pipe, a file), every line is whole.
    let whole = report.text(style: .plain, width: nil).split(separator: "\n")[1]
    #expect(whole.contains(message.trimmingCharacters(in: .whitespaces)), "\(whole)")
    #expect(!whole.contains("…"))
  }

  /// `vivarium check` into a pipe cuts no line.
  @Test func checkIntoAPipeCutsNoLine() throws {
    let result = try ProcessRunner.vivarium(["check", BuildProducts.itemsList, "--only", "composition.lifecycle"])
    let lines = result.stdout.split(separator: "\n")
    #expect(!lines.contains { $0.hasSuffix("…") }, "\(result.stdout)")
    #expect(lines.contains { $0.count > 80 }, "the build's arguments, whole: \(result.stdout)")
  }
}
