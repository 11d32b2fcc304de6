import Testing
import ViperKit

@testable import VivariumApp

/// The keys that reach the command line, the keys and quit from wherever
/// the focus is: the sign-in form opens with its user field taking keys.
@Suite("Terminal app keys")
@MainActor
struct TerminalAppKeysTests {
  /// Whether the sign-in form's user field holds `value`.
  private func userField(_ pilot: Pilot, holds value: String) throws -> Bool {
    let tree = try #require(pilot.runtime.top?.tree)
    return tree.contains(.field(id: "user", label: "User", value: value, placeholder: "user name"))
  }

  @Test func escLeavesAFieldAndThenTheShortcutsAct() async throws {
    let pilot = try await Pilot()
    await pilot.type("grace")
    await pilot.press(.escape)
    await pilot.press(.character(":"))
    #expect(pilot.screen[pilot.screen.count - 2] == ":", "\(pilot.text)")
    #expect(try userField(pilot, holds: "grace"), "':' went into the field")
    await pilot.press(.escape, .character("?"))
    #expect(pilot.text.contains("Shift-Tab"), "\(pilot.text)")
    await pilot.press(.escape)
    // Enter takes the field up again; the text goes on where it was.
    await pilot.press(.enter)
    await pilot.type("x")
    #expect(try userField(pilot, holds: "gracex"))
    await pilot.press(.escape, .character("q"))
    #expect(pilot.lastAction == .quit)
  }

  @Test func ctrlPAndCtrlGWorkInAField() async throws {
    let pilot = try await Pilot()
    await pilot.type("grace")
    await pilot.press(.control("g"))
    #expect(pilot.text.contains("Shift-Tab"), "\(pilot.text)")
    await pilot.press(.escape)
    await pilot.press(.control("p"))
    await pilot.type("tree")
    await pilot.press(.enter)
    #expect(pilot.text.contains("navigation stack"), "\(pilot.text)")
    #expect(try userField(pilot, holds: "grace"))
  }

  @Test func theBottomLineSaysHowToLeaveAField() async throws {
    let pilot = try await Pilot()
    let editing = try #require(pilot.screen.last)
    #expect(editing.contains("Esc leave field") && editing.contains("Ctrl-P") && editing.contains("Ctrl-G"))
    await pilot.press(.escape)
    let left = try #require(pilot.screen.last)
    #expect(left.contains("Enter edit") && left.contains(": command") && left.contains("q quit"), "\(left)")
  }

  /// Hints that do not all fit are left out whole, the last first, and the
  /// one leading to every key stays: none is cut in the middle.
  @Test func hintsThatDoNotFitAreLeftOutWholeKeepingTheKeys() {
    let hints = "Enter select · arrows PgUp PgDn move · Esc back · : command · ? keys · q quit"
    #expect(TerminalApp.fitting(hints, in: 200) == hints)
    #expect(
      TerminalApp.fitting(hints, in: 70) == "Enter select · arrows PgUp PgDn move · Esc back · : command · ? keys")
    #expect(TerminalApp.fitting(hints, in: 30) == "Enter select · ? keys")
    #expect(TerminalApp.fitting(hints, in: 6) == "? keys")
  }
}

extension TerminalAppKeysTests {
  @Test func afterSigningInAgainTheFocusIsOnTheFirstElement() async throws {
    let pilot = try await Pilot(start: "dashboard:home?user=ada", signedIn: true)
    await pilot.wait(1)
    await pilot.press(.end, .enter)  // Sign out
    #expect(pilot.text.contains("Sign in"), "\(pilot.text)")
    await pilot.press(.end, .control("u"))
    await pilot.type("ada")
    await pilot.press(.tab)
    await pilot.type("lovelace")
    await pilot.press(.enter, .enter)
    await pilot.wait(2)
    #expect(pilot.text.contains("Hello, Ada"), "\(pilot.text)")
    let focused = try #require(pilot.row(containing: "▶"))
    #expect(pilot.screen[focused].contains("[›Items‹]"), "\(pilot.text)")
  }

  @Test func aMistypedCommandSuggestsTheCommandMeant() async throws {
    let pilot = try await Pilot(signedIn: true)
    await pilot.press(.character(":"))
    await pilot.type("opne items:list")
    await pilot.press(.enter)
    #expect(
      pilot.text.contains("'opne'") && pilot.text.contains("'open'"), "the word typed, the command meant: \(pilot.text)"
    )
  }

  @Test func tabCompletesTheSharedStartAndListsTheCandidates() async throws {
    let pilot = try await Pilot(signedIn: true)
    await pilot.press(.character(":"))
    await pilot.type("tap ta")
    await pilot.press(.tab)
    #expect(pilot.screen[pilot.screen.count - 2] == ":tap tab", "\(pilot.text)")
    #expect(pilot.screen.last?.contains("tab.feed  tab.items  tab.search") == true)
  }

  @Test func theBottomLineNamesAFocusedRowAsSelectTakesIt() async throws {
    let pilot = try await Pilot(start: "dashboard:home?user=ada", signedIn: true)
    await pilot.wait(1)
    await pilot.tab(to: "Write the contract")
    #expect(pilot.screen.last?.contains("tabs/items 2 · row 2 of 4") == true, "\(pilot.screen.last ?? "")")
  }
}
