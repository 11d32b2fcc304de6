import Foundation
import VivariumSupport

/// Where a command writes: results on stdout, errors and warnings on stderr,
/// colour only where ``TextStyle`` allows it.
///
/// Text is made visible by ``TerminalText`` on its way out: the host's own
/// colour codes pass, and any other control character (from a plugin, a URN,
/// a file name, typed text) is shown escaped instead of reaching the
/// terminal. In JSON the encoder escapes U+0000–U+001F, and DEL, the C1 and
/// the bidi controls are written as `\uNNNN` (``TerminalText/json(_:)``).
/// Everything goes out with write(2); a failed write to stdout ends the
/// command with status 1 and a message.
struct Console {
  let environment: [String: String]
  let style: TextStyle
  let errorStyle: TextStyle
  /// The columns results may take: `COLUMNS`, else the terminal's, else 80.
  let width: Int
  /// The columns of the terminal results go to (or `COLUMNS`); nil for a
  /// pipe or a file, where a line is never cut to fit.
  let terminalWidth: Int?

  init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    self.environment = environment
    style = .forOutput(STDOUT_FILENO, environment: environment)
    errorStyle = .forOutput(STDERR_FILENO, environment: environment)
    terminalWidth = TerminalWidth.measured(environment)
    width = terminalWidth ?? 80
  }

  func out(_ text: String, terminator: String = "\n") {
    write(text + terminator, to: STDOUT_FILENO, style: style)
  }

  /// `message` on stderr as `vivarium COMMAND: error: MESSAGE`, on one line
  /// (`vivarium: error: MESSAGE` when `command` is empty).
  func error(_ command: String, _ message: String) {
    report(command, errorStyle.tone(.negative, "error:"), message)
  }

  /// `message` on stderr as `vivarium COMMAND: warning: MESSAGE`, on one line.
  func warning(_ command: String, _ message: String) {
    report(command, errorStyle.tone(.warning, "warning:"), message)
  }

  /// What a command is doing, on stderr as `vivarium COMMAND: MESSAGE`, on
  /// one line: progress, neither a result nor a warning.
  func progress(_ command: String, _ message: String) {
    report(command, nil, message)
  }

  /// Compact, key-sorted JSON on one line of stdout (JSON Lines).
  func jsonLine<Value: Encodable>(_ value: Value) {
    writeJSON(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
  }

  /// Pretty, key-sorted JSON on stdout.
  func json<Value: Encodable>(_ value: Value) {
    writeJSON(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
  }

  private func report(_ command: String, _ prefix: String?, _ message: String) {
    // The message is escaped whole, newlines included, before the prefix
    // (the host's colour) is added.
    let name = command.isEmpty ? "vivarium" : "vivarium \(TerminalText.visible(command))"
    let line = "\(name): \(prefix.map { $0 + " " } ?? "")\(TerminalText.visible(message))\n"
    write(line, to: STDERR_FILENO, style: errorStyle)
  }

  private func write(_ text: String, to fd: Int32, style: TextStyle) {
    let allowed = style.colour ? TextStyle.sequences : []
    emit(TerminalText.visible(text, keepingNewlines: true, allowing: allowed), to: fd)
  }

  private func writeJSON<Value: Encodable>(_ value: Value, formatting: JSONEncoder.OutputFormatting) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting
    // Encoding our own plain value types cannot fail.
    let data = (try? encoder.encode(value)) ?? Data("null".utf8)
    emit(TerminalText.json(String(decoding: data, as: UTF8.self)) + "\n", to: STDOUT_FILENO)
  }

  /// Writes `text` to `fd`. If standard output cannot be written (a full
  /// disk, a closed pipe), says so on stderr and exits 1; a failing stderr
  /// is ignored.
  private func emit(_ text: String, to fd: Int32) {
    guard let failure = DescriptorOutput.write(text, to: fd), fd == STDOUT_FILENO else { return }
    _ = DescriptorOutput.write(
      "vivarium: error: cannot write to standard output: \(String(cString: strerror(failure)))\n", to: STDERR_FILENO)
    exit(ExitCode.failure)
  }
}
