import Foundation
import Glibc
import Testing
import ViperKit

@testable import VivariumRuntime

/// Writing can fail (a full disk, a log that is not a file) and text can carry
/// controls: the host says so or escapes them, and never traps or hangs.
@Suite("Output and log failures")
@MainActor
struct OutputFailureTests {
  let data: TemporaryDirectory

  init() throws {
    data = try TemporaryDirectory()
  }

  private func log(_ host: HostServices) -> [String] {
    let text = (try? String(contentsOfFile: data.path + "/vivarium.log", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }

  @Test func aStorageFolderThatIsAFileRefusesSavesInsteadOfHanging() throws {
    try data.write("storage", Data("not a folder\n".utf8))
    let host = TestServices.make(in: data)
    let storage = try #require(
      host.services(for: ServicesTests.storage, plugin: ServicesTests.shop, urn: "shop:cart").storage)
    HangGuard.bounding("saving into a storage folder that is a file") {
      #expect(throws: (any Error).self) { try storage.set("1", forKey: "favourites") }
    }
  }

  @Test func twoSessionsAppendToOneLogWithoutOverwritingEachOther() {
    let first = TestServices.make(in: data)
    let second = TestServices.make(in: data)
    first.logLine(.info, module: "a", "first, one")
    second.logLine(.info, module: "b", String(repeating: "B", count: 200))
    first.logLine(.info, module: "a", "first, two")
    let lines = log(first)
    #expect(lines.count == 3, "\(lines)")
    #expect(lines.last?.hasSuffix("a: first, two") == true)
  }

  @Test func aModuleCannotForgeALogLineOrPutControlsInTheLog() {
    let host = TestServices.make(in: data)
    host.logLine(.info, module: "evil:x", "hello\n2026-01-01T00:00:00Z error host: FORGED \u{1B}]52;c;aGk=\u{07}")
    let lines = log(host)
    #expect(lines.count == 1, "\(lines)")
    #expect(lines[0].contains("hello\\x0A2026") && lines[0].contains("\\e]52"), "\(lines)")
    // The session's `log` keeps the break, the line after it indented
    // under the message: no line of its own, and no control either.
    #expect(host.recentLog.count == 1)
    #expect(
      host.recentLog[0].hasSuffix("evil:x: hello\n    2026-01-01T00:00:00Z error host: FORGED \\e]52;c;aGk=\\x07"))
  }

  @Test func aLogThatCannotBeWrittenIsToldOnceAndTheSessionGoesOn() throws {
    try FileManager.default.createSymbolicLink(atPath: data.path + "/vivarium.log", withDestinationPath: "/dev/full")
    let host = TestServices.make(in: data)
    let person = HostNotifications()
    host.announcements.listen(person)
    host.logLine(.info, module: "a", "one")
    host.logLine(.info, module: "a", "two")
    let notices = person.takeNotices()
    #expect(notices.count == 1 && notices[0].text.contains("vivarium.log"), "the file: \(notices)")
    #expect(host.recentLog.count == 2)
  }

  @Test func aFullStandardOutputIsAnErrorNotACrash() throws {
    let result = try ProcessRunner.run("/bin/sh", ["-c", "exec \"$0\" routes > /dev/full", BuildProducts.vivarium])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("standard output") && result.stderr.contains(String(cString: strerror(ENOSPC))),
      "\(result.stderr)")
  }

  @Test func jsonCarriesNoRawC1OrBidiControls() throws {
    let result = try ProcessRunner.vivarium(["render", "profile:%E2%80%AEevil%C2%9B", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x9B })
    #expect(result.stdout.contains("\\u202Eevil\\u009B"), "\(result.stdout)")
    let decoded = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    #expect("\(decoded)".contains("\u{202E}evil\u{9B}"))
  }

  @Test func anAbsurdColumnsIsCapped() throws {
    let result = try ProcessRunner.vivarium(["render", "items:list"], environment: ["COLUMNS": "100000000000"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").allSatisfy { $0.count <= 1000 })
  }

  @Test func aTabSeparatesWordsOfACommand() throws {
    #expect(try SessionCommand.parse("tap\tsignIn") == .tap("signIn"))
  }
}
