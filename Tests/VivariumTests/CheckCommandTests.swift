import Foundation
import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

/// `vivarium check` on the sample plugins (which must pass) and on plugins
/// broken on purpose (each must fail exactly its check, by name and message).
@Suite("vivarium check")
@MainActor
struct CheckCommandTests {
  struct Report: Decodable {
    struct Plugin: Decodable {
      let path: String
      let results: [CheckResult]
    }
    let plugins: [Plugin]
    let failed: Bool
  }

  private func check(_ arguments: [String]) throws -> (report: Report, status: Int32) {
    let result = try ProcessRunner.vivarium(["check", "--json"] + arguments)
    return (try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8)), result.status)
  }

  /// Timing checks only warn, and a loaded machine can make them. The
  /// profile and the item detail have a Back button, flagged because it
  /// fails where they are the first screen (opened by a deep link; the demo
  /// only pushes them). The item detail emits itemChanged only once the
  /// items service answers a toggle, and the wallet preview balanceChanged
  /// only once its top-up closes: the checks' fakes reach neither, so each
  /// is flagged as declared and never sent. Everything else must pass
  /// without a warning.
  @Test func everySamplePluginPassesAtStrictnessTen() throws {
    let files = BuildProducts.pluginNames.map { "\(BuildProducts.directory)/lib\($0).so" }
    let (report, status) = try check(files + ["--strictness", "10"])
    let results = report.plugins.flatMap(\.results)
    let back = results.filter { $0.check == "navigation.back" && $0.status == .warning }
    #expect(back.compactMap(\.module).sorted() == ["profile:{userID}", "weather:{city}"])
    let unsent = results.filter { $0.check == "composition.outputs" && $0.status == .warning }
    #expect(unsent.compactMap(\.module).sorted() == ["items:detail:{itemID}", "wallet:preview"])
    let expected: Set = ["navigation.back", "composition.outputs"]
    let failures = results.filter {
      $0.status.isFailure || ($0.status == .warning && !$0.check.hasPrefix("speed.") && !expected.contains($0.check))
    }
    #expect(failures.isEmpty, "\(failures.map(\.description).joined(separator: "\n"))")
    #expect(status == 0)
    #expect(!report.failed)
    #expect(report.plugins.map(\.path) == files)
  }

  @Test func eachBrokenModuleFailsExactlyItsCheckWithTheDocumentedAdvice() throws {
    let library = try SwiftPluginBuilder.brokenModules.get()
    let (report, status) = try check([library, "--strictness", "10"])
    #expect(status == 1)
    let results = try #require(report.plugins.first?.results)
    #expect(
      results.first { $0.check == "descriptor.exports" }?.status == .warning,
      "a debug build exports more than the entry")
    let modules = Set(results.compactMap(\.module))
    #expect(modules.count == 23)
    // Faults seen only when acting on a module or answering its parent, and
    // a service used without being listed: each named with what to change.
    func message(_ module: String, _ check: String) -> String {
      results.first { $0.module == module && $0.check == check }?.message ?? ""
    }
    let slots = message("broken:composition.slots:tap", "composition.slots")
    #expect(slots.contains("'broken:none'") && slots.contains("'side'"), "the module and the slot: \(slots)")
    let outputs = message("broken:composition.outputs:answer", "composition.outputs")
    #expect(["'refreshed'", "'count'", "int"].allSatisfy(outputs.contains), "output, field, type: \(outputs)")
    #expect(message("broken:composition.inputs:child", "composition.inputs").contains("'reload'"))
    #expect(message("broken:services.declared", "services.declared").contains("add .clock"), "the service to add")
    for module in modules {
      let mine = results.filter { $0.module == module }
      let bad = mine.filter { $0.status.isFailure }
      let intended = module.split(separator: ":")[1]
      switch intended {
      case "none":
        #expect(bad.isEmpty && !mine.contains { $0.status == .warning && !$0.check.hasPrefix("speed.") }, "\(mine)")
      case "speed.first-render", "navigation.back":
        #expect(bad.isEmpty, "\(bad)")
        let warnings = mine.filter { $0.status == .warning && ($0.check == intended || !$0.check.hasPrefix("speed.")) }
        #expect(warnings.map(\.check) == [String(intended)])
      default:
        #expect(bad.map(\.check) == [String(intended)], "\(module): \(bad.map(\.description))")
        if let result = bad.first {
          if result.status == .crashed {
            #expect(result.message.contains("signal 4"), "\(result.message)")
            #expect(result.message.contains(".swift:"), "the Swift fatal-error line: \(result.message)")
            #expect(result.message.contains("--only \(intended) --in-process"))
          } else {
            if intended == "navigation.declared" {
              #expect(
                result.message.contains("'broken:none:weather:london?unit=imperial'")
                  && result.message.contains("'unit'"),
                "what it asked for, and the argument refused: \(result.message)")
            }
            let advice = try #require(ConformanceCheck.named(String(intended))?.fix)
            #expect(result.message.hasSuffix("fix: " + advice), "\(result.message)")
          }
        }
      }
    }
  }

  @Test func pluginWideChecksCatchAmbiguousPatternsAndSlowLoading() throws {
    let library = try SwiftPluginBuilder.brokenPlugin.get()
    let (report, status) = try check([library, "--only", "contract.unambiguous", "--only", "speed.load"])
    #expect(status == 1)
    let results = try #require(report.plugins.first?.results)
    let unambiguous = try #require(results.first { $0.check == "contract.unambiguous" })
    #expect(unambiguous.status == .failed)
    #expect(unambiguous.message.contains("twin:{b}") && unambiguous.message.contains("twin:{a}"), "both patterns")
    #expect(results.first { $0.check == "speed.load" }?.status == .warning)
  }

  @Test(
    "descriptor problems fail the matching check",
    arguments: [
      ("magic", "descriptor.magic"), ("abi", "descriptor.abi"), ("sdk", "descriptor.sdk"),
      ("compiler", "descriptor.compiler"), ("noentry", "load.entry"), ("text", "load.file"),
    ])
  func descriptorProblems(flaw: String, expected: String) throws {
    let dir = try TemporaryDirectory()
    var fields = CPluginBuilder.Fields()
    let path: String
    switch flaw {
    case "noentry": path = try CPluginBuilder.libraryWithoutEntry(named: "bad.so", in: dir)
    case "text": path = try dir.write("bad.so", Data("text".utf8))
    default:
      switch flaw {
      case "magic": fields.magic = "1u"
      case "abi": fields.abi = "9u"
      case "sdk": fields.minor = "VIPERKIT_VERSION_MINOR + 1"
      default: fields.compiler = "Swift 5.0"
      }
      path = try CPluginBuilder.plugin(fields, named: "bad.so", in: dir)
    }
    let (report, status) = try check([path])
    #expect(status == 1)
    let results = try #require(report.plugins.first?.results)
    #expect(results.filter { $0.status.isFailure }.map(\.check) == [expected])
  }

  @Test func aPluginCrashingInItsEntryIsReportedAndTheOtherFilesStillChecked() throws {
    let dir = try TemporaryDirectory()
    let crashing = try CPluginBuilder.plugin(entryBody: "__builtin_trap(); return 0;", named: "crash.so", in: dir)
    let (report, status) = try check([crashing, BuildProducts.itemsList])
    #expect(status == 1)
    #expect(report.plugins.count == 2)
    let entry = report.plugins[0].results.first { $0.check == "load.entry" }
    #expect(entry?.status == .crashed)
    #expect(entry?.message.contains("signal 4") == true)
    #expect(!report.plugins[1].results.contains { $0.status.isFailure })
    #expect(report.plugins[1].results.contains { $0.check == "build.minimal" && $0.status == .passed })
  }

  /// A plugin author's build folder holds the SDK's own libraries:
  /// `vivarium plugins` skips them, and so does `check`, failing nothing.
  @Test func theSDKsOwnLibrariesInABuildFolderAreSkipped() throws {
    let dir = try TemporaryDirectory()
    for name in ["libViperKit.so", "libViperKitHosting.so", "libViperKitTestKit.so"] {
      try dir.copy(BuildProducts.directory + "/" + name, as: name)
    }
    let (report, status) = try check([dir.path])
    #expect(status == 0)
    #expect(!report.failed)
    #expect(report.plugins.count == 3)
    for plugin in report.plugins {
      #expect(plugin.results.map(\.status) == [.skipped], "\(plugin.path): \(plugin.results)")
      #expect(plugin.results.first?.message.contains("ViperKit") == true, "the library it is: \(plugin.results)")
    }
    let text = try ProcessRunner.vivarium(["check", dir.path])
    #expect(text.status == 0)
    #expect(text.stdout.contains("skipped: "), "\(text.stdout)")
  }

  @Test func onlySkipAndStrictnessChooseTheChecks() throws {
    let (report, _) = try check([BuildProducts.itemsList, "--only", "build", "--skip", "build.minimal"])
    let ran = report.plugins[0].results.filter { $0.status != .skipped }.map(\.check)
    #expect(ran == ["build.unknown-argument"])
    let (shallow, _) = try check([BuildProducts.itemsList, "--strictness", "1"])
    let deepest = shallow.plugins[0].results.filter { $0.status != .skipped }.compactMap {
      ConformanceCheck.named($0.check)?.level
    }.max()
    #expect(deepest == 1)
  }

  @Test func inProcessGivesTheSameResults() throws {
    let (isolated, _) = try check([BuildProducts.itemsDetail, "--only", "build", "--only", "composition"])
    let (inProcess, _) = try check([
      BuildProducts.itemsDetail, "--only", "build", "--only", "composition", "--in-process",
    ])
    #expect(isolated.plugins[0].results.map(\.status) == inProcess.plugins[0].results.map(\.status))
  }

  @Test(arguments: [["--strictness", "11"], ["--strictness", "x"], []])
  func usageErrors(arguments: [String]) throws {
    let result = try ProcessRunner.vivarium(
      ["check"] + (arguments.first == "--strictness" ? [BuildProducts.itemsList] : []) + arguments)
    #expect(result.status == 2)
    #expect(result.stderr.contains("vivarium check: error:"))
  }

  /// A file that is not there is something the command could not do (1,
  /// as docs/reference.md says), named on stderr; not a usage error.
  @Test func aMissingFileIsAFailureNamingIt() throws {
    let result = try ProcessRunner.vivarium(["check", "/no/such/plugin.so"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("vivarium check: error:") && result.stderr.contains("/no/such/plugin.so"))
  }

  /// The catalog holds each check of the one declaration once, each with
  /// its reason; the module checker runs exactly the module-scope ones.
  @Test func everyCheckIdIsInTheCatalogOnceWithItsReason() {
    #expect(
      ConformanceCheck.all.map(\.id).sorted { $0.rawValue < $1.rawValue }
        == CheckID.allCases.sorted { $0.rawValue < $1.rawValue })
    #expect(ConformanceCheck.all.allSatisfy { !$0.why.isEmpty && !$0.fix.isEmpty && !$0.verifies.isEmpty })
  }

  @Test func everyCheckIsDocumented() throws {
    let page = try String(contentsOfFile: BuildProducts.repository + "/Host/SDK/TestKit/CHECKS.md", encoding: .utf8)
    for check in ConformanceCheck.all {
      #expect(page.contains("### `\(check.name)`"), "CHECKS.md lacks \(check.name)")
      #expect(page.contains(check.fix), "CHECKS.md lacks the fix for \(check.name)")
    }
  }
}
