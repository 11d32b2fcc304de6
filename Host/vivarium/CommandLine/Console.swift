import Foundation
import VivariumHost

/// Where a command writes: results on stdout, errors and warnings on stderr,
/// colour only where ``TextStyle`` allows it.
struct Console {
  let environment: [String: String]
  let style: TextStyle
  let errorStyle: TextStyle

  init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    self.environment = environment
    style = .forOutput(STDOUT_FILENO, environment: environment)
    errorStyle = .forOutput(STDERR_FILENO, environment: environment)
  }

  func out(_ text: String, terminator: String = "\n") {
    FileHandle.standardOutput.write(Data((text + terminator).utf8))
  }

  func error(_ command: String, _ message: String) {
    let prefix = errorStyle.tone(.negative, "error:")
    FileHandle.standardError.write(Data("vivarium \(command): \(prefix) \(message)\n".utf8))
  }

  func warning(_ command: String, _ message: String) {
    let prefix = errorStyle.tone(.warning, "warning:")
    FileHandle.standardError.write(Data("vivarium \(command): \(prefix) \(message)\n".utf8))
  }

  /// Compact, key-sorted JSON on one line of stdout (JSON Lines).
  func jsonLine<Value: Encodable>(_ value: Value) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("null".utf8)
    out(String(decoding: data, as: UTF8.self))
  }

  /// Pretty, key-sorted JSON on stdout.
  func json<Value: Encodable>(_ value: Value) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Encoding our own plain value types cannot fail.
    let data = (try? encoder.encode(value)) ?? Data("null".utf8)
    out(String(decoding: data, as: UTF8.self))
  }
}
