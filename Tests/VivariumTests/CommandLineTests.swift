import Foundation
import Testing
import ViperKitHosting
import ViperKitTestKit
import VivariumSupport
import VivariumTools

/// The `vivarium` executable, run as a person or a script would run it.
@Suite("vivarium command line")
@MainActor
struct CommandLineTests {
  /// A plugin directory with the two sample plugins and a handful of bad files.
  private func mixedDirectory() throws -> TemporaryDirectory {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try dir.copy(BuildProducts.itemsDetail, as: "libItemsDetail.so")
    try dir.write("empty.so", Data())
    try dir.write("readme.so", Data("# not a plugin\n".utf8))
    let whole = try Data(contentsOf: URL(fileURLWithPath: BuildProducts.itemsList))
    try dir.write("truncated.so", whole.prefix(4096))
    try dir.copy(BuildProducts.viperKit, as: "libViperKit.so")
    _ = try CPluginBuilder.libraryWithoutEntry(named: "libhelper.so", in: dir)
    try dir.write("notes.txt", Data("ignored: not a .so\n".utf8))
    return dir
  }

  private struct PluginsJSON: Decodable {
    struct Row: Decodable {
      let status: String
      let path: String
      let urns: [String]
      let reason: String?
      let messages: [String]
    }
    let source: String
    let plugins: [Row]
  }

  @Test func pluginsListsEveryFileWithItsStatusAndReason() throws {
    let dir = try mixedDirectory()
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", dir.path, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let report = try JSONDecoder().decode(PluginsJSON.self, from: Data(result.stdout.utf8))
    #expect(report.source == "command line")
    let byName = Dictionary(uniqueKeysWithValues: report.plugins.map { (($0.path as NSString).lastPathComponent, $0) })
    #expect(
      byName.keys.sorted()
        == [
          "empty.so", "libHelper.so".lowercased(), "libItemsDetail.so", "libItemsList.so", "libViperKit.so",
          "readme.so",
          "truncated.so",
        ].sorted())
    #expect(byName["libItemsList.so"]?.status == "loaded")
    #expect(byName["libItemsList.so"]?.urns == ["items:list"])
    #expect(byName["libItemsDetail.so"]?.urns == ["items:detail:{itemID}"])
    #expect(byName["empty.so"]?.reason == "empty")
    #expect(byName["readme.so"]?.reason == "not-elf")
    #expect(byName["truncated.so"]?.reason == "truncated")
    #expect(byName["libViperKit.so"]?.reason == "sdk-library")
    #expect(byName["libViperKit.so"]?.status == "skipped")
    #expect(byName["libhelper.so"]?.reason == "no-entry-symbol")
    #expect(report.plugins.filter { $0.status == "rejected" }.allSatisfy { !$0.messages.isEmpty })
  }

  @Test func pluginsDisableTurnsAPluginOffUntilEnableAndSaysSoInTheList() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try dir.copy(BuildProducts.itemsDetail, as: "libItemsDetail.so")
    let data = try TemporaryDirectory()
    let place = ["--plugins", dir.path, "--data", data.path]
    let list = {
      let result = try ProcessRunner.vivarium(["plugins", "--json"] + place)
      #expect(result.status == 0, "\(result.stderr)")
      let rows = try JSONDecoder().decode(PluginsJSON.self, from: Data(result.stdout.utf8)).plugins
      return Dictionary(uniqueKeysWithValues: rows.map { (($0.path as NSString).lastPathComponent, $0) })
    }
    // By its file's name without lib and .so, as `permissions` takes it.
    let off = try ProcessRunner.vivarium(["plugins", "disable", "ItemsDetail"] + place)
    #expect(off.status == 0, "\(off.stderr)")
    var rows = try list()
    #expect(rows["libItemsDetail.so"]?.status == "disabled")
    #expect(rows["libItemsDetail.so"]?.reason == "disabled")
    #expect(rows["libItemsList.so"]?.status == "loaded")
    // None of its modules is offered (the runtime's tests hold the reason to `plugin-off`).
    #expect(try ProcessRunner.vivarium(["render", "items:detail:1"] + place).status == 1)

    let on = try ProcessRunner.vivarium(["plugins", "enable", "ItemsDetail"] + place)
    #expect(on.status == 0, "\(on.stderr)")
    rows = try list()
    #expect(rows["libItemsDetail.so"]?.status == "loaded")
    // Mistakes: a plugin not there, an action not known.
    #expect(try ProcessRunner.vivarium(["plugins", "disable", "Nothing"] + place).status == 1)
    #expect(try ProcessRunner.vivarium(["plugins", "disabel", "ItemsDetail"] + place).status == 2)
    #expect(try ProcessRunner.vivarium(["plugins", "disable"] + place).status == 2)
  }

  @Test func settingsListsSetsChecksAndResetsWhatAPluginDeclares() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.directory + "/libWeather.so", as: "libWeather.so")
    let data = try TemporaryDirectory()
    let place = ["--plugins", dir.path, "--data", data.path]
    struct Row: Decodable {
      let plugin, key, kind, value: String
      let isDefault: Bool
      let choices: [String]
    }
    let listed = try ProcessRunner.vivarium(["settings", "--json"] + place)
    #expect(listed.status == 0, "\(listed.stderr)")
    let rows = try JSONDecoder().decode([Row].self, from: Data(listed.stdout.utf8))
    #expect(rows.map(\.key) == ["weather.units"] && rows[0].isDefault && rows[0].kind == "choice")
    #expect(rows[0].value == "celsius" && rows[0].choices == ["celsius", "fahrenheit"])
    // Set, read back, refused outside its choices, reset.
    #expect(try ProcessRunner.vivarium(["settings", "Weather", "weather.units", "fahrenheit"] + place).status == 0)
    let read = try ProcessRunner.vivarium(["settings", "Weather", "weather.units"] + place)
    #expect(read.status == 0 && read.stdout == "fahrenheit\n", "\(read.stderr)")
    #expect(try ProcessRunner.vivarium(["settings", "Weather", "weather.units", "kelvin"] + place).status == 1)
    let reset = try ProcessRunner.vivarium(["settings", "Weather", "weather.units", "--reset", "--json"] + place)
    #expect(reset.status == 0, "\(reset.stderr)")
    #expect(try JSONDecoder().decode(Row.self, from: Data(reset.stdout.utf8)).isDefault)
    // Mistakes: a plugin or key not there, too many words, --reset with a value.
    #expect(try ProcessRunner.vivarium(["settings", "Nothing"] + place).status == 1)
    #expect(try ProcessRunner.vivarium(["settings", "Weather", "weather.unit"] + place).status == 1)
    #expect(try ProcessRunner.vivarium(["settings", "Weather", "weather.units", "celsius", "x"] + place).status == 2)
    #expect(
      try ProcessRunner.vivarium(["settings", "Weather", "weather.units", "celsius", "--reset"] + place).status == 2)
  }

  /// Named relative to the working directory, as a person types it: one
  /// path component, which Foundation's path functions trap on.
  @Test func pluginsTextNamesEachFile() throws {
    let dir = try mixedDirectory()
    let name = String(dir.path.split(separator: "/").last!)
    let result = try ProcessRunner.vivarium(["plugins", "--plugins", name], directory: PathName.parent(dir.path))
    #expect(result.status == 0)
    #expect(result.stdout.contains("skipped   libViperKit.so"), "\(result.stdout)")
    for name in ["empty.so", "readme.so", "truncated.so", "libhelper.so"] {
      #expect(result.stdout.contains("rejected  \(name)"), "\(name) missing in:\n\(result.stdout)")
    }
    #expect(result.stdout.contains("2 loaded, 4 rejected, 1 skipped, 0 URN conflicts"))
  }

  @Test func renderPrintsTheItemsList() throws {
    // A data directory of its own: another test's child holding the run's
    // shared one would make this render read-only, and say so on stderr.
    let data = try TemporaryDirectory()
    let result = try ProcessRunner.vivarium(["render", "items:list"], environment: ["VIVARIUM_DATA_DIR": data.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("Items\n─────\n4 items, 2 enabled\nlist items:\n  (1) Buy milk"))
    #expect(result.stdout.contains("[ Delete all ] (deleteAll)"))
    #expect(result.stderr.isEmpty)
  }

  @Test func renderDetailAsJSON() throws {
    let result = try ProcessRunner.vivarium(["render", "items:detail:2", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let screen = try #require(object["screen"] as? [String: Any])
    #expect(screen["urn"] as? String == "items:detail:2")
    #expect((object["arguments"] as? [String: Int]) == ["itemID": 2])
    #expect((screen["tree"] as? [String: Any])?["kind"] as? String == "stack")
    #expect((object["leaks"] as? [String]) == [])
  }

  @Test func renderAcceptsArgumentsSeparately() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsDetail, as: "libItemsDetail.so")
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    let result = try ProcessRunner.vivarium(["render", "items:detail:3", "--plugins", dir.path])
    #expect(result.stdout.hasPrefix("Water the plants\n"))
  }

  @Test(
    "render failures exit 1 with the reason on stderr",
    arguments: [
      (["render", "items:detail:x"], "argument 'itemID' of items:detail:{itemID}"),
      (["render", "items:nowhere"], "no module answers 'items:nowhere'"),
      (["render", "items:list", "--arg", "limit=3"], "unknown argument 'limit'"),
      (["render", "items::"], "invalid URN"),
    ])
  func renderFailure(arguments: [String], message: String) throws {
    let result = try ProcessRunner.vivarium(arguments)
    #expect(result.status == 1)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }

  @Test(
    "usage errors exit 2 and point to --help",
    arguments: [
      ["render"], ["render", "a:b", "c:d"], ["render", "items:list", "--arg", "novalue"], ["plugins", "--bogus"],
      ["plugins", "extra"], ["routes", "--plugins"], ["launch"],
    ])
  func usageError(arguments: [String]) throws {
    let result = try ProcessRunner.vivarium(arguments)
    #expect(result.status == 2)
    #expect(result.stderr.contains("vivarium"))
    #expect(result.stderr.contains("--help"))
  }

  @Test(arguments: ["run", "plugins", "log", "routes", "render", "check", "graph", "sdk", "new"])
  func everyCommandHasHelp(command: String) throws {
    let result = try ProcessRunner.vivarium([command, "--help"])
    #expect(result.status == 0)
    // Wording matters: every command's help starts with its usage line.
    #expect(result.stdout.hasPrefix("Usage: vivarium \(command)"))
    #expect(result.stdout.contains("Exit codes:"))
    let long = result.stdout.split(separator: "\n").filter { $0.count > 80 }
    #expect(long.isEmpty, "lines over 80 columns: \(long)")
    let viaHelp = try ProcessRunner.vivarium(["help", command])
    #expect(viaHelp.stdout == result.stdout)
  }

  @Test func routesCatalogAsJSONAndTheEnvironmentPath() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(BuildProducts.itemsList, as: "libItemsList.so")
    try dir.write("bad.so", Data("x".utf8))
    let result = try ProcessRunner.vivarium(["routes", "--json"], environment: ["VIVARIUM_PLUGIN_PATH": dir.path])
    #expect(result.status == 0)
    let object = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let routes = try #require(object["routes"] as? [[String: Any]])
    #expect(routes.map { $0["urn"] as? String } == ["items:list"])
    #expect(result.stderr.contains("skipped \(dir.path)/bad.so (not-elf)"))
  }

  @Test func routesTextShowsArgumentsWithTypes() throws {
    let result = try ProcessRunner.vivarium(["routes"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("items:detail:{itemID}"))
    #expect(result.stdout.contains("itemID: int, required"))
    #expect(result.stdout.contains("\(BuildProducts.demoCatalog.routes.count) modules"))
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func colourOnATerminalUnlessNoColor() throws {
    let command = "\(BuildProducts.vivarium) render items:list"
    // swift test itself sets NO_COLOR; an empty value means "not set".
    let coloured = try ProcessRunner.run(
      "/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["NO_COLOR": ""])
    #expect(coloured.stdout.contains("\u{1B}[32m[enabled]"))
    let plain = try ProcessRunner.run(
      "/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["NO_COLOR": "1"])
    #expect(plain.stdout.contains("[enabled]"))
    #expect(!plain.stdout.contains("\u{1B}["))
  }
}
