import Foundation
import VivariumRuntime
import VivariumSupport

/// Writes session steps as they happen, in order: with `echo`, the command
/// as `> command` on stdout; then its errors on stderr; then the screen or
/// report on stdout. Both streams are written unbuffered, so a reader of
/// both (`2>&1`) sees each error right after the command that caused it.
final class Transcript {
  let console: Console
  let json: Bool
  let echo: Bool
  private(set) var failures = 0

  init(console: Console, json: Bool, echo: Bool) {
    self.console = console
    self.json = json
    self.echo = echo
  }

  /// Shows `step`; `line` is its line number in a script or pipe, for errors.
  /// `given` is that line as read, which the echo repeats: the script or pipe
  /// holds it already, text typed into a secret field included, which
  /// `step.command` (and so the JSON) has as dots.
  func show(_ step: Session.Step, line: Int?, given: String? = nil) {
    failures += step.errors.count
    if json {
      guard !step.command.trimmingCharacters(in: .whitespaces).isEmpty else { return }
      console.jsonLine(step)
      return
    }
    guard !step.output.isEmpty || !step.errors.isEmpty || step.quit else { return }
    // The command is the person's text: escaped before the console lets the
    // host's own colour codes through.
    if echo, line != nil { console.out("> " + TerminalText.visible(given ?? step.command)) }
    for error in step.errors { console.error("run", (line.map { "line \($0): " } ?? "") + error) }
    if !step.output.isEmpty { console.out(step.output.joined(separator: "\n")) }
  }
}
