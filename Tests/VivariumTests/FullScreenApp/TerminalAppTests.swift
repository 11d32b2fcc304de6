import Testing

@testable import VivariumApp
@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumTerminal

/// The full-screen app driven by keys only, read off its grid: the demo's
/// walk a person takes without typing an identifier.
@Suite("Terminal app")
@MainActor
struct TerminalAppTests {
  /// The dashboard, signed in as ada, its first data loaded.
  private func signedIn() async throws -> Pilot {
    let pilot = try await Pilot(start: "dashboard:home?user=ada", signedIn: true)
    await pilot.wait(1)
    return pilot
  }

  @Test func signingInTakesKeysOnlyAndNeverShowsThePassword() async throws {
    let pilot = try await Pilot()
    #expect(pilot.text.contains("Sign in"))
    await pilot.type("ada")
    #expect(pilot.screen.contains { $0.contains("User: [ada") })
    await pilot.press(.tab)
    await pilot.type("lovelace")
    let field = try #require(pilot.row(containing: "Password:"))
    #expect(pilot.screen[field].contains("[••••••••  "), "\(pilot.text)")
    #expect(!pilot.screen[field].contains("lovelace"))
    await pilot.press(.enter, .enter)
    #expect(pilot.text.contains("Signing in as 'ada'"))
    #expect(pilot.screen[0].contains { "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏".contains($0) }, "the header spins while signing in")
    await pilot.wait(2)
    #expect(pilot.text.contains("Hello, Ada"), "\(pilot.text)")
  }

  @Test func theFrameNamesTheShownTabAndTheButtonsSwitchIt() async throws {
    let pilot = try await signedIn()
    #expect(pilot.text.contains("[Items] tab 1 of 3"))
    // One control for the tabs, named as the tabs are: the module's buttons.
    let controls = pilot.screen.filter { $0.contains("Items") && $0.contains("Products") && $0.contains("Feed") }
    #expect(controls.count == 1 && controls[0].contains("[ Products ]"), "\(pilot.text)")
    // The focus starts on the first element, the Items button; the next is Products.
    await pilot.press(.tab, .enter)
    #expect(pilot.text.contains("[Products] tab 2 of 3"), "\(pilot.text)")
    #expect(!pilot.text.contains("[Items]"))
  }

  /// The arrows move the focus the way they point: Down from a tab header
  /// into the shown tab's content, Up back to that header, Right and Left
  /// along the headers; Up from a tab's field to its own header.
  @Test func theArrowsMoveTheFocusTheWayTheyPoint() async throws {
    let pilot = try await signedIn()
    func focused() -> String { pilot.screen.last ?? "" }
    #expect(focused().contains("tab.items"), "the focus starts on the first header: \(focused())")
    await pilot.press(.down)
    #expect(focused().contains("row 1 of"), "into the items list, not the next header: \(focused())")
    await pilot.press(.up)
    #expect(focused().contains("tab.items"), "\(focused())")
    await pilot.press(.right)
    #expect(focused().contains("tab.search"), "\(focused())")
    await pilot.press(.left, .right, .right)
    #expect(focused().contains("tab.feed"), "\(focused())")
    await pilot.press(.left, .enter)
    #expect(pilot.text.contains("[Products] tab 2 of 3"), "\(pilot.text)")
    await pilot.press(.down)
    let field = focused()
    #expect(!field.contains("tab."), "into the products tab: \(field)")
    await pilot.press(.up)
    #expect(focused().contains("tab.search"), "its own header: \(focused())")
  }

  @Test func enterOnARowOpensItAndEscComesBackToTheSameRow() async throws {
    let pilot = try await signedIn()
    // Items, Products, Feed, then the rows of the items list.
    await pilot.press(.tab, .tab, .tab, .down)
    let focused = try #require(pilot.row(containing: "▶"))
    #expect(pilot.screen[focused].contains("Write the contract"))
    #expect(pilot.screen.last?.contains("row 2 of 4") == true, "\(pilot.screen.last ?? "")")
    await pilot.press(.enter)
    #expect(pilot.text.contains("State: enabled"))
    #expect(pilot.screen[0].contains("Hello, Ada › Write the contract"))
    await pilot.press(.escape)
    let back = try #require(pilot.row(containing: "▶"))
    #expect(pilot.screen[back].contains("Write the contract"))
  }

  @Test func theWalletIsToppedUpInAModalBoxAndEscClosesIt() async throws {
    let pilot = try await signedIn()
    await pilot.press(.tab, .tab, .enter)  // the Feed tab
    await pilot.wait(1)
    #expect(pilot.text.contains("Wallet: €50"))
    // Focus the Top up button by moving forward until it is focused.
    await pilot.tab(to: "Top up")
    await pilot.press(.enter)
    #expect(pilot.screen.contains { $0.contains("╭") && $0.contains("Top up") }, "\(pilot.text)")
    #expect(pilot.screen[0].contains("▸ Top up"))
    await pilot.press(.escape)
    #expect(!pilot.text.contains("╭"))
    await pilot.tab(to: "Top up")
    await pilot.press(.enter, .down, .enter)  // the second amount
    #expect(!pilot.text.contains("╭"))
    #expect(!pilot.text.contains("Wallet: €50"), "\(pilot.text)")
  }

  @Test func aFieldEditsInPlace() async throws {
    let pilot = try await Pilot()
    await pilot.type("grce")
    await pilot.press(.left, .left)
    await pilot.type("a")
    await pilot.press(.home, .delete, .end, .backspace)
    await pilot.press(.paste("ce\nx"))
    #expect(pilot.screen.contains { $0.contains("User: [racce x") }, "\(pilot.text)")
    let login = try #require(pilot.runtime.top?.tree)
    #expect(login.contains(.field(id: "user", label: "User", value: "racce x", placeholder: "user name")))
  }

  @Test func questionMarkShowsTheKeysAndAnyKeyClosesThem() async throws {
    let pilot = try await signedIn()
    await pilot.press(.character("?"))
    #expect(pilot.text.contains("Shift-Tab"))
    await pilot.press(.escape)
    #expect(!pilot.text.contains("Shift-Tab"))
    #expect(pilot.text.contains("Hello, Ada"))
  }

  @Test func theCommandLineCompletesRunsAndRemembers() async throws {
    let pilot = try await signedIn()
    await pilot.press(.character(":"))
    await pilot.type("tr")
    await pilot.press(.tab)
    #expect(pilot.screen[pilot.screen.count - 2] == ":tree")
    await pilot.press(.enter)
    #expect(pilot.text.contains("navigation stack"))
    await pilot.press(.escape)
    await pilot.press(.character(":"), .up)
    #expect(pilot.screen[pilot.screen.count - 2] == ":tree")
    await pilot.press(.escape)
    await pilot.press(.character(":"))
    await pilot.type("open items:det")
    await pilot.press(.tab)
    #expect(pilot.screen[pilot.screen.count - 2] == ":open items:detail:")
    await pilot.type("3")
    await pilot.press(.enter)
    #expect(pilot.text.contains("Water the plants"))
  }

  @Test func aCommandThatFailsSaysWhyOnTheMessageLine() async throws {
    let pilot = try await signedIn()
    await pilot.press(.character(":"))
    await pilot.type("open nowhere:at-all")
    await pilot.press(.enter)
    // The message takes the rows it needs above the status line: the host's sentence, from its start.
    let said = try pilot.runtime.catalog.resolveError("nowhere:at-all").message.split(separator: " ").prefix(3)
    #expect(
      pilot.screen.dropLast().suffix(3).contains { $0.hasPrefix("✗ " + said.joined(separator: " ")) }, "\(pilot.text)")
  }

  @Test func noticesShowOnOneLineAndGoAway() async throws {
    let pilot = try await signedIn()
    await pilot.press(.tab, .enter)  // Products
    await pilot.wait(1)
    // Search, then the rows of the results; Enter marks a favourite.
    await pilot.tab(to: "Blue mug")
    await pilot.press(.enter)
    let line = pilot.screen[pilot.screen.count - 2]
    #expect(line.contains("is now a favourite"), "\(pilot.text)")
    await pilot.wait(6)
    #expect(!pilot.screen[pilot.screen.count - 2].contains("favourite"))
  }

  @Test func aSmallWindowScrollsToTheFocusAndSaysWhereItIs() async throws {
    let pilot = try await Pilot(signedIn: true, width: 60, height: 12)
    await pilot.wait(1)
    await pilot.press(.end)
    let focused = try #require(pilot.row(containing: "▶"))
    #expect(pilot.screen[focused].contains("Sign out"), "\(pilot.text)")
    #expect(pilot.screen.last?.contains("lines") == true)
    #expect(!pilot.screen.dropFirst().contains { $0.contains("Hello, Ada") })
    await pilot.press(.home)
    #expect(pilot.screen.dropFirst().contains { $0.contains("Hello, Ada") })
  }

  @Test func buttonsTooManyForOneLineFlowOntoAsFewLinesAsTheyFit() async throws {
    let pilot = try await Pilot(start: "vivarium:log", signedIn: true, width: 60)
    let names = BuildProducts.demoCatalog.loaded.map(\.name)
    let rows = Set(names.map { name in pilot.row(containing: "[ \(name) ]") })
    #expect(!rows.contains(nil), "every plugin's button is drawn whole:\n\(pilot.text)")
    // Buttons of about 15 columns on a line of 60: at least two to a line, not one each.
    #expect(rows.count <= (names.count + 1) / 2, "\(pilot.text)")
    await pilot.tab(to: names[0])
    #expect(pilot.screen[try #require(pilot.row(containing: "▶"))].contains(names[0]), "reached by Tab")
  }

  @Test func aClickFocusesAndActivates() async throws {
    let pilot = try await signedIn()
    let row = try #require(pilot.row(containing: "[ Products ]"))
    let column = try #require(pilot.screen[row].range(of: "[ Products ]")).lowerBound
    let x = pilot.screen[row].distance(from: pilot.screen[row].startIndex, to: column) + 2
    await pilot.press(.mouse(MouseEvent(kind: .press(button: 0), x: x, y: row)))
    #expect(pilot.text.contains("[Products]"))
  }

  @Test func theFocusIsMarkedWithoutColour() async throws {
    let pilot = try await signedIn()
    let grid = pilot.app.frame()
    let row = try #require(grid.lines.firstIndex { $0.contains("▶") })
    #expect(grid.lines[row].contains("[›Items‹]"))
    #expect(grid.lines[row].contains("[ Products ]"), "only the focused button is marked")
    let x = try #require((0..<grid.width).first { grid[x: $0, y: row].text == "[" })
    #expect(grid[x: x, y: row].style.reverse)
  }

  @Test func escOnTheFirstScreenSaysThereIsNothingToGoBackTo() async throws {
    let pilot = try await signedIn()
    await pilot.press(.escape)
    #expect(pilot.screen[pilot.screen.count - 2].contains("nothing to go back to"))
    #expect(pilot.text.contains("Hello, Ada"))
  }

  @Test func aResizedWindowIsDrawnAtItsNewSize() async throws {
    let pilot = try await signedIn()
    pilot.app.resize(width: 50, height: 14)
    let grid = pilot.app.frame()
    #expect(grid.width == 50 && grid.height == 14)
    #expect(grid.lines.contains { $0.contains("Hello, Ada") })
    pilot.app.resize(width: 20, height: 5)
    #expect(pilot.text.contains("Window too small"))
  }

  @Test func quitKeysEndTheApp() async throws {
    let pilot = try await signedIn()
    await pilot.press(.character("q"))
    #expect(pilot.lastAction == .quit)
    await pilot.press(.control("z"))
    #expect(pilot.lastAction == .suspend)
  }
}

extension TerminalAppTests {
  /// Keys read in one go are handled before the next frame is drawn.
  @Test func keysReadTogetherLandWhereTheyWouldOneByOne() async throws {
    let pilot = try await Pilot()
    for key: KeyEvent in [.character("a"), .character("d"), .character("a"), .tab, .character("x")] {
      _ = await pilot.app.handle(key)
    }
    let login = try #require(pilot.runtime.top?.tree)
    #expect(login.contains(.secretField(id: "password", label: "Password", length: 1, placeholder: "password")))
    #expect(login.contains(.field(id: "user", label: "User", value: "ada", placeholder: "user name")))
  }
}

extension TerminalAppTests {
  /// Keys typed faster than frames: each acts on the screen the one before
  /// left, a modal opened by one taking the next.
  @Test func keysBeforeTheNextFrameActOnTheScreenTheKeyBeforeLeft() async throws {
    let pilot = try await signedIn()
    for key: KeyEvent in [.tab, .tab, .enter] { _ = await pilot.app.handle(key) }
    await pilot.wait(1)
    #expect(pilot.text.contains("Wallet: €50"))
    for key: KeyEvent in [.tab, .enter, .down, .enter] { _ = await pilot.app.handle(key) }
    #expect(pilot.text.contains("Wallet: €70"), "\(pilot.text)")
    #expect(!pilot.text.contains("╭"))
  }

  @Test func aModalBoxIsAsTallAsItsContent() async throws {
    let pilot = try await signedIn()
    await pilot.press(.tab, .tab, .enter)
    await pilot.wait(1)
    await pilot.press(.tab, .enter)
    let top = try #require(pilot.row(containing: "╭"))
    let bottom = try #require(pilot.row(containing: "╰"))
    #expect(bottom - top - 1 == 6, "heading, text, three amounts, Cancel: \(pilot.text)")
    #expect(pilot.screen[top].contains("Top up"))
  }
}

extension TerminalAppTests {
  private static let spinnerFrames = Set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

  @Test func aModuleWithWorkInFlightShowsASpinnerWhereItIsDrawn() async throws {
    // The feed starts loading its posts as the dashboard opens; its clock stands still.
    let pilot = try await Pilot(start: "dashboard:home?user=ada", signedIn: true)
    await pilot.press(.tab, .tab, .enter)
    let strip = try #require(pilot.row(containing: "[Feed]"))
    #expect(pilot.screen[strip].contains { Self.spinnerFrames.contains($0) }, "\(pilot.text)")
    await pilot.wait(1)
    #expect(!pilot.screen[strip].contains { Self.spinnerFrames.contains($0) })
    // The feed's 30-second refresh timer waits between ticks: no spinner meanwhile.
    #expect(!pilot.text.contains { Self.spinnerFrames.contains($0) })
  }

  @Test func anAlertWaitsForEnter() async throws {
    let pilot = try await signedIn()
    pilot.runtime.notifications.alert(title: "Item not changed", message: "The disk is full.")
    #expect(pilot.text.contains("Item not changed"))
    await pilot.press(.tab, .character("x"))
    #expect(pilot.text.contains("The disk is full."))
    #expect(pilot.screen[pilot.screen.count - 2].contains("Press Enter"))
    await pilot.press(.enter)
    #expect(!pilot.text.contains("The disk is full."))
    #expect(pilot.runtime.notifications.alerts.isEmpty)
  }

  /// A module's question: the answer that does not go ahead is focused
  /// first; the arrows move, Enter answers, Esc cancels.
  @Test func aQuestionAnswersWhatIsFocusedAndEscCancels() async throws {
    let pilot = try await signedIn()
    var answers: [Bool] = []
    let notifications = pilot.runtime.notifications
    let choice = HostNotifications.Choice(confirm: "Discard", cancel: "Keep editing")
    notifications.ask(title: "notes:edit", question: "Discard your changes?", choice) { answers.append($0) }
    #expect(pilot.text.contains("▶[ Keep editing ]"))
    #expect(pilot.screen[pilot.screen.count - 1].contains("Esc Keep editing"))
    // The bottom line names the question, not the element behind it.
    #expect(pilot.screen[pilot.screen.count - 1].contains("notes:edit"))
    #expect(!pilot.screen[pilot.screen.count - 1].contains("tab.items"), "\(pilot.screen.last ?? "")")
    await pilot.press(.enter)
    notifications.ask(title: "notes:edit", question: "Discard your changes?", choice) { answers.append($0) }
    await pilot.press(.right)
    #expect(pilot.text.contains("▶[ Discard ]"))
    await pilot.press(.enter)
    notifications.ask(title: "notes:edit", question: "Discard your changes?", choice) { answers.append($0) }
    await pilot.press(.right, .escape)
    #expect(answers == [false, true, false])
    #expect(notifications.alerts.isEmpty)
    #expect(!pilot.text.contains("Discard your changes?"))
  }

  /// A hint inside the app names the app's own command, not the shell's.
  @Test func aHintInTheAppNamesTheAppsCommand() async throws {
    let pilot = try await signedIn()
    await pilot.press(.character(":"))
    await pilot.type("open nowhere:at:all")
    await pilot.press(.enter)
    #expect(pilot.text.contains("':routes'"), "\(pilot.text)")
    #expect(!pilot.text.contains("vivarium routes"), "\(pilot.text)")
  }

  @Test func textTypedOutsideAFieldSaysWhereTextGoes() async throws {
    let pilot = try await signedIn()
    await pilot.type("m")
    #expect(pilot.screen[pilot.screen.count - 2].contains("Only a field takes text"))
  }

  @Test func inAFieldShortcutKeysAreText() async throws {
    let pilot = try await Pilot()
    await pilot.type("q?:")
    #expect(pilot.lastAction == .redraw)
    #expect(pilot.screen.contains { $0.contains("User: [q?:") })
  }
}

extension TerminalAppTests {
  /// The command line completes the names the session parses, no more.
  @Test func everyCompletedCommandNameIsOneTheSessionKnows() {
    for name in SessionCommand.names {
      do {
        _ = try SessionCommand.parse(name)
      } catch {
        #expect(error.kind != .unknownCommand, "\(name): \(error.message)")
      }
    }
    #expect {
      try SessionCommand.parse("frobnicate")
    } throws: { error in
      (error as? SessionCommand.ParseError)?.kind == .unknownCommand
    }
  }
}

extension TerminalAppTests {
  /// The wallet preview the feed embeds offers `topUp` on `t`: `?` lists it,
  /// the command line completes it, and `t` outside a field runs it.
  @Test func aModulesCommandIsInTheHelpCompletedAndRunByItsKey() async throws {
    let pilot = try await Pilot(start: "dashboard:home?user=ada/feed:home", signedIn: true)
    await pilot.wait(1)
    await pilot.press(.character("?"))
    #expect(pilot.text.contains("Top up the wallet (:topUp, WalletPlugin)"), "\(pilot.text)")
    await pilot.press(.escape)
    #expect(pilot.app.completions([], "to").contains("topUp"))
    #expect(pilot.app.completions(["run"], "").contains("topUp"))
    await pilot.press(.character("t"))
    #expect(pilot.text.contains("Pick an amount"), "\(pilot.text)")
    // Not on a screen without the wallet: there `t` is text where none is taken.
    let items = try await signedIn()
    await items.press(.character("?"))
    #expect(!items.text.contains("Commands of this screen"))
  }
}
