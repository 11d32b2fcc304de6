import VivariumSupport

/// What `vivarium check --app` prints: the app, its size and every finding,
/// as text or JSON.
package struct AppCheckReport: Encodable, Sendable {
  /// The plugin directory checked.
  package let directory: String
  /// The app's name, from its manifest.
  package let app: String?
  /// The start link, from its manifest.
  package let start: String?
  /// How many modules the directory holds.
  package let modules: Int
  /// How many declared links (push, present, replace, embed) they have.
  package let links: Int
  /// How many business services the plugins provide.
  package let services: Int
  /// Every finding, failures and notes.
  package let findings: [AppFinding]
  /// Whether any finding fails the check.
  package let failed: Bool

  /// The report on `flow`, the app in `directory`.
  /// With a note of what stops working without each plugin named in
  /// `without` (their declared names).
  package init(directory: String, flow: AppFlow, without: Set<String> = []) {
    self.directory = directory
    app = flow.manifest?.name
    start = flow.manifest?.start
    modules = flow.routes.count
    links = flow.edges.count
    services = flow.services.services.count
    findings = AppCheck.findings(flow, without: without)
    failed = findings.contains { $0.severity == .failed }
  }

  /// The report as terminal text, `width` columns wide, with what plugins
  /// and manifests wrote made visible.
  package func text(style: TextStyle, width: Int = 80) -> String {
    var lines = [
      style.bold((app ?? "The app").oneLineVisible) + " in \(directory.oneLineVisible)"
        + (start.map { ", starting at \($0.oneLineVisible)" } ?? ""),
      "  \(Plural.count(modules, "module")), \(Plural.count(links, "declared link")), "
        + Plural.count(services, "business service"),
    ]
    let wrapWidth = max(width - 6, 20)
    for finding in findings {
      let label = (finding.severity == .failed ? "failed" : "note").padding(toLength: 7, withPad: " ", startingAt: 0)
      let tone = finding.severity == .failed ? style.tone(.negative, label) : style.dim(label)
      lines.append("  \(tone) \(finding.name)" + (finding.module.map { "  " + $0.oneLineVisible } ?? ""))
      var body = TextRenderer.wrap(finding.message.oneLineVisible, width: wrapWidth)
      if !finding.files.isEmpty {
        body += TextRenderer.wrap("files: " + finding.files.joined(separator: ", ").oneLineVisible, width: wrapWidth)
      }
      body += TextRenderer.wrap("fix: " + finding.fix.oneLineVisible, width: wrapWidth)
      lines += body.map { "      " + style.dim($0) }
    }
    let failures = findings.filter { $0.severity == .failed }.count
    let notes = findings.count - failures
    lines.append(
      failures == 0
        ? style.tone(.positive, "every link resolves and every required service has one provider in range")
          + (notes == 0 ? "" : ", \(Plural.count(notes, "note"))")
        : "\(failures) failed" + (notes == 0 ? "" : ", \(Plural.count(notes, "note"))"))
    return lines.joined(separator: "\n")
  }
}
