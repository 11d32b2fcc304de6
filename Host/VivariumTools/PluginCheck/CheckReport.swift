import Foundation
import ViperKitHosting
import VivariumSupport

/// What `vivarium check` prints: every plugin's results, as text or JSON.
package struct CheckReport: Encodable, Sendable {
  /// One plugin file's results.
  package struct Plugin: Encodable, Sendable {
    /// The file.
    package let path: String
    /// Its results, file checks first.
    package let results: [CheckResult]

    /// The results for the file at `path`.
    package init(path: String, results: [CheckResult]) {
      self.path = path
      self.results = results
    }
  }

  /// The strictness used.
  package let strictness: Int
  /// Every file checked, in command-line order.
  package let plugins: [Plugin]

  /// A report of `plugins` at `strictness`.
  package init(strictness: Int, plugins: [Plugin]) {
    self.strictness = strictness
    self.plugins = plugins
  }

  /// Counts by status over every plugin.
  package var summary: [String: Int] {
    var counts = Dictionary(uniqueKeysWithValues: CheckStatus.allCases.map { ($0.rawValue, 0) })
    for result in plugins.flatMap(\.results) { counts[result.status.rawValue, default: 0] += 1 }
    return counts
  }

  /// Whether anything failed, crashed or timed out.
  package var failed: Bool { plugins.flatMap(\.results).contains { $0.status.isFailure } }

  private enum CodingKeys: String, CodingKey { case strictness, plugins, summary, failed }

  /// Encodes the plugins, the summary and whether the run failed.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(strictness, forKey: .strictness)
    try container.encode(plugins, forKey: .plugins)
    try container.encode(summary, forKey: .summary)
    try container.encode(failed, forKey: .failed)
  }

  /// The report as terminal text, `width` columns wide (nil: each line
  /// whole, for a pipe or a file): skipped checks are only counted; paths,
  /// modules and messages have control characters escaped.
  package func text(style: TextStyle, width: Int? = 80) -> String {
    /// `text` wrapped to `columns`, or whole without a width.
    func wrap(_ text: String, _ columns: (Int) -> Int) -> [String] {
      guard let width else { return [text] }
      return TextRenderer.wrap(text, width: max(columns(width), 20))
    }
    var lines: [String] = []
    for plugin in plugins {
      lines.append(style.bold(plugin.path.oneLineVisible))
      var module: String?? = .none
      for result in plugin.results where result.status != .skipped {
        if module != .some(result.module) {
          module = .some(result.module)
          if let name = result.module { lines.append("  " + style.bold(name.oneLineVisible)) }
        }
        let indent = result.module == nil ? "  " : "    "
        let label = result.status.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        let check = result.check.oneLineVisible
        let message = result.message.oneLineVisible
        let head = "\(indent)\(tone(result.status, label, style)) \(check)"
        if result.status == .passed {
          let room = (width ?? .max) - indent.count - 12 - check.count  // label (9), spaces (3)
          let shown = width == nil ? message : TextRenderer.truncate(message, to: max(room, 10))
          lines.append(head + style.dim(message == "passed" ? "" : "  " + shown))
        } else {
          lines.append(head)
          lines += wrap(message) { $0 - indent.count - 4 }.map { indent + "  " + $0 }
        }
      }
      let skipped = plugin.results.filter { $0.status == .skipped }.count
      if skipped == plugin.results.count, let why = plugin.results.first?.message {
        // Nothing ran on this file (one of the SDK's own libraries): say why.
        lines += wrap("skipped: " + why.oneLineVisible) { $0 - 4 }.map { "  " + style.dim($0) }
      } else if skipped > 0 {
        lines.append(
          style.dim("  \(skipped) skipped (not applicable, not selected, or above strictness \(strictness))"))
      }
    }
    let counts = summary
    let order: [CheckStatus] = [.passed, .warning, .failed, .crashed, .timedOut, .skipped]
    lines.append(
      order.map { status in
        let count = counts[status.rawValue] ?? 0
        return status == .warning ? Plural.count(count, "warning") : "\(count) \(status.rawValue)"
      }.joined(separator: ", "))
    return lines.joined(separator: "\n")
  }

  private func tone(_ status: CheckStatus, _ text: String, _ style: TextStyle) -> String {
    switch status {
    case .passed: style.tone(.positive, text)
    case .warning: style.tone(.warning, text)
    case .failed, .crashed, .timedOut: style.tone(.negative, text)
    case .skipped: style.dim(text)
    }
  }
}
