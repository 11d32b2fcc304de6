import Glibc
import ViperKit

/// Why a plugin process ended, as the modules it hosted show it in their
/// place: the plugin, the signal or exit status, the last lines it wrote to
/// stderr (where Swift puts a fatal error with its file and line).
package struct PluginFailure: Equatable, Sendable {
  /// The plugin file's name.
  package let plugin: String
  /// What happened: `it crashed (signal 4, …)`, `it exited with status 3`, …
  package let cause: String
  /// The last lines of its stderr, at most ``linesKept``.
  package let lastLines: [String]
  /// The line where Swift said why it stopped, if it did.
  package let fatalError: String?
  /// Set when the person turned the plugin off: then its modules say it
  /// is off, and offer to turn it on instead of a restart.
  package let turnedOff: TurnedOff?

  /// A plugin the person turned off.
  package struct TurnedOff: Equatable, Sendable {
    /// Its declared name.
    package let name: String
    /// The command that turns it on, as the person would run it.
    package let enableCommand: String

    /// The plugin `name`, turned on again by `enableCommand`.
    package init(name: String, enableCommand: String) {
      self.name = name
      self.enableCommand = enableCommand
    }
  }

  /// How many stderr lines are kept.
  static let linesKept = 6

  init(plugin: String, status: Int32, stderr: String, stopReason: String?, turnedOff: TurnedOff?, memoryLimit: Int) {
    self.plugin = plugin
    self.turnedOff = turnedOff
    // What it said before Swift's stack trace, which names no file of the plugin.
    let said = stderr.components(separatedBy: "\nCurrent stack trace:")[0]
    let lines = said.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    lastLines = Array(lines.suffix(Self.linesKept))
    fatalError = ChildProcess.fatalErrorLine(stderr)
    let signal = status & 0x7F
    if let stopReason {
      cause = "it was stopped: \(stopReason)"
    } else if signal != 0 {
      let memory =
        stderr.contains("allocate") && stderr.contains("memory")
        ? " when it reached its memory limit of \(memoryLimit >> 20) MiB (--plugin-memory)" : ""
      cause = "it crashed\(memory) (\(ChildProcess.describe(signal: signal)))"
    } else {
      cause = "its process exited with status \((status >> 8) & 0xFF) (code in the plugin called exit)"
    }
  }

  /// `, saying "…"` with the fatal-error line, if any.
  var saying: String { fatalError.map { ", saying \"\($0)\"" } ?? "" }

  /// One line for logs, problems and a parent: `libX.so: it crashed (…), saying "…"`.
  package var summary: String { "\(plugin): \(cause)\(saying)" }

  /// What the module's place on screen shows.
  var tree: ViewNode {
    if let turnedOff { return Self.turnedOffTree(turnedOff) }
    var lines: [ViewNode] = [
      .heading("⚠ \(plugin) stopped"),
      .notice(.negative, "The plugin process hosting this module ended: \(cause)."),
    ]
    if let fatalError { lines.append(.text(fatalError, tone: .warning)) }
    let others = lastLines.filter { $0 != fatalError }
    if !others.isEmpty {
      lines.append(.text("Its last lines on stderr:", tone: .muted))
      lines += others.map { .text("  " + $0, tone: .muted) }
    }
    lines.append(.text("The rest of the app keeps working; what it saved is kept.", tone: .muted))
    lines.append(.button(id: PluginFailure.restartButton, title: "Restart \(plugin)"))
    return .stack(.vertical, lines)
  }

  /// What a module of a plugin turned off shows in its place.
  static func turnedOffTree(_ off: TurnedOff) -> ViewNode {
    .stack(
      .vertical,
      [
        .heading("⏻ \(off.name) is off"),
        .notice(.info, "\(off.name) is turned off in this app, so what it shows here is not shown."),
        .text("Turn it on here, or with \(off.enableCommand).", tone: .muted),
        .button(id: enableButton, title: "Turn \(off.name) on"),
      ])
  }

  /// The restart button's id.
  static let restartButton = "restart"
  /// The id of the button that turns a plugin turned off on again.
  static let enableButton = "enable"
  /// The not-responding screen's buttons.
  static let waitButton = "wait"
  static let stopButton = "stop"

  /// What a module shows while its plugin process does not answer.
  static func notRespondingTree(plugin: String, what: String, limit: Duration, waiting: Bool) -> ViewNode {
    let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
    let said =
      waiting
      ? "Waiting for \(plugin) to answer \(what)…"
      : "\(plugin) has not answered \(what) within \(seconds.formatted()) s."
    var lines: [ViewNode] = [.heading("◷ Not responding"), .notice(.warning, said)]
    if !waiting { lines.append(.button(id: waitButton, title: "Wait")) }
    lines.append(.button(id: stopButton, title: "Stop \(plugin)"))
    return .stack(.vertical, lines)
  }
}

extension Double {
  /// `3`, `0.5`: the number without a trailing `.0`.
  fileprivate func formatted() -> String {
    rounded() == self ? String(Int(self)) : String(self)
  }
}
