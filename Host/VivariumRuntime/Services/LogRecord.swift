import Foundation
import ViperKit
import VivariumSupport

/// One line of the host's log, `vivarium.log` in the data directory:
/// `TIME LEVEL [PLUGIN] MODULE: MESSAGE`. `[PLUGIN]` is the declared name
/// of the plugin that wrote it, or whose rate it counts against; a line
/// of the host's own has none, and neither has a line written before
/// lines named their plugin (`TIME LEVEL MODULE: MESSAGE`), which parses
/// as the host's. The module and the message are made visible
/// (``TerminalText/visible(_:keepingNewlines:)``): one line each.
package struct LogRecord: Equatable, Sendable, Encodable {
  /// The file the host writes, in the data directory.
  package static let fileName = "vivarium.log"
  /// What it becomes past its size (the one before is replaced).
  package static let previousFileName = fileName + ".1"

  /// When, as written: ISO 8601, to the second.
  package var time: String
  /// How much it matters.
  package var level: LogLevel
  /// The declared name of the plugin whose line it is; nil for the host's.
  package var plugin: String?
  /// The module's URN, `host`, or the plugin's name.
  package var module: String
  /// What was logged, visible.
  package var message: String

  /// A record of `message`, each part made visible.
  package init(time: String, level: LogLevel, plugin: String?, module: String, message: String) {
    self.time = time
    self.level = level
    self.plugin = plugin.map { TerminalText.visible($0) }
    self.module = TerminalText.visible(module)
    self.message = TerminalText.visible(message)
  }

  /// The line up to the message: `TIME LEVEL [PLUGIN] MODULE: `.
  package var head: String {
    "\(time) \(level.rawValue) " + (plugin.map { "[\(Self.tag($0))] " } ?? "") + "\(module): "
  }

  /// The line, without its newline.
  package var line: String { head + message }

  /// The record `line` writes (its newline left out), or nil for a line of
  /// another form (cut short by a crash, or not the host's).
  package init?(parsing line: Substring) {
    guard let space = line.firstIndex(of: " ") else { return nil }
    let rest = line[line.index(after: space)...]
    guard let levelEnd = rest.firstIndex(of: " "), let level = LogLevel(rawValue: String(rest[..<levelEnd])) else {
      return nil
    }
    var body = rest[rest.index(after: levelEnd)...]
    var plugin: String?
    if body.hasPrefix("["), let close = body.firstRange(of: "] ") {
      let tag = body[body.index(after: body.startIndex)..<close.lowerBound]
      plugin = String(tag).removingPercentEncoding ?? String(tag)
      body = body[close.upperBound...]
    }
    guard let colon = body.firstRange(of: ": ") else { return nil }
    time = String(line[..<space])
    self.level = level
    self.plugin = plugin
    module = String(body[..<colon.lowerBound])
    message = String(body[colon.upperBound...])
  }

  /// `name` as the line writes it between brackets: no space, no `]`
  /// (percent-encoded, as is `%`), so that the tag ends where it ends.
  private static func tag(_ name: String) -> String {
    name.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "]", with: "%5D")
      .replacingOccurrences(of: " ", with: "%20")
  }
}
