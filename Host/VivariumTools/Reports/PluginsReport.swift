import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// What `vivarium plugins` prints: one row per file or directory, then the
/// URN conflicts and partial overlaps, as text or JSON.
package struct PluginsReport: Encodable, Sendable {
  /// One file or directory.
  package struct Row: Encodable, Sendable {
    /// What became of the file.
    package enum Status: String, Encodable, Sendable {
      /// It loaded: its modules are offered.
      case loaded
      /// It was refused: ``reason`` says why.
      case rejected
      /// The person turned it off (`vivarium plugins enable` turns it on).
      case disabled
      /// One of the SDK's own libraries beside plugins: not a plugin.
      case skipped
    }

    /// What became of the file.
    package let status: Status
    /// The file or directory.
    package let path: String
    /// The plugin's name, when loaded or turned off.
    package let name: String?
    /// The SDK version the plugin was built against, when loaded.
    package let sdkVersion: String?
    /// Where what it offers was learned, when loaded: `cache` (the registry
    /// cache), `probe` (a probe process) or `loaded` (this process).
    package let from: String?
    /// URN patterns it offers, when loaded.
    package let urns: [String]
    /// What it may reach through the host once granted (`KIND:SCOPE`), when loaded.
    package let permissions: [String]
    /// The rejection kind, a stable name, when rejected.
    package let reason: String?
    /// What is wrong and what to do, when rejected.
    package let messages: [String]
  }

  /// Patterns from several plugins that match the same URNs.
  package struct Conflict: Encodable, Sendable {
    /// The competing patterns, in load order.
    package let patterns: [String]
    /// The files that provide them, in the same order.
    package let plugins: [String]
    /// What is wrong and what to do.
    package let message: String
  }

  /// Two patterns that overlap partly: the URNs both answer go to one.
  package struct Overlap: Encodable, Sendable {
    /// The pattern that gets ``example``, then the other.
    package let patterns: [String]
    /// The files that provide them, in the same order.
    package let plugins: [String]
    /// A URN both patterns answer.
    package let example: String
    /// What happens and what to do.
    package let message: String
  }

  /// Plugins declaring one name, which keys storage: none of them gets storage.
  package struct IdentityConflict: Encodable, Sendable {
    /// The name they declare.
    package let identity: String
    /// Their files, in load order.
    package let plugins: [String]
    /// What is wrong and what to do.
    package let message: String
  }

  /// Where the directories came from.
  package let source: String
  /// The directories scanned.
  package let directories: [String]
  /// One row per file or directory looked at.
  package let plugins: [Row]
  /// URN conflicts between loaded plugins.
  package let conflicts: [Conflict]
  /// Identity conflicts between loaded plugins.
  package let identityConflicts: [IdentityConflict]
  /// Patterns that overlap partly, the first of each winning: warnings.
  package let overlaps: [Overlap]

  /// The report for a scan.
  package init(discovery: PluginDiscovery, catalog: PluginCatalog) {
    source = discovery.source.rawValue
    directories = discovery.directories
    plugins = catalog.outcomes.map { outcome in
      switch outcome {
      case .loaded(let plugin):
        Row(
          status: .loaded, path: plugin.path, name: plugin.name, sdkVersion: plugin.sdkVersion.description,
          from: plugin.source?.rawValue, urns: plugin.contracts.map(\.urn),
          permissions: plugin.permissions.map(\.description), reason: nil, messages: [])
      case .rejected(let rejection):
        Row(
          status: rejection.isSDKLibrary ? .skipped : rejection.kind == .disabled ? .disabled : .rejected,
          path: rejection.path, name: rejection.plugin, sdkVersion: nil, from: nil,
          urns: [], permissions: [],
          reason: rejection.kind.rawValue, messages: rejection.reasons)
      }
    }
    conflicts = catalog.conflicts.map { conflict in
      Conflict(
        patterns: conflict.routes.map(\.pattern.text), plugins: conflict.routes.map(\.pluginPath),
        message: conflict.message)
    }
    overlaps = catalog.overlaps.map { overlap in
      Overlap(
        patterns: [overlap.winner.pattern.text, overlap.loser.pattern.text],
        plugins: [overlap.winner.pluginPath, overlap.loser.pluginPath], example: overlap.example,
        message: overlap.message)
    }
    identityConflicts = catalog.identityConflicts.map {
      IdentityConflict(identity: $0.name, plugins: $0.paths, message: $0.message)
    }
  }

  /// The report as terminal text, `width` columns wide. Paths, names, URNs
  /// and messages are shown on one line each, control characters escaped.
  package func text(style: TextStyle, width: Int = 80) -> String {
    let shownDirectories = directories.map { $0.isEmpty ? "(empty entry)" : $0.oneLineVisible }.joined(separator: ", ")
    var lines = ["Plugins from \(shownDirectories) (\(source))"]
    let names = plugins.map { row in
      row.path.isEmpty ? "(empty entry)" : PathName.lastComponent(row.path).oneLineVisible
    }
    let nameWidth = min(names.map(\.count).max() ?? 0, 32)
    for (row, shownName) in zip(plugins, names) {
      let name = shownName.padding(toLength: max(nameWidth, shownName.count), withPad: " ", startingAt: 0)
      switch row.status {
      case .loaded:
        let urns = row.urns.map(\.oneLineVisible).joined(separator: ", ")
        lines.append("  \(style.tone(.positive, "loaded  "))  \(name)  \(urns)")
        if !row.permissions.isEmpty {
          let permissions = row.permissions.map(\.oneLineVisible).joined(separator: ", ")
          lines.append(String(repeating: " ", count: 14) + style.dim("asks for \(permissions)"))
        }
      case .skipped:
        lines.append("  \(style.dim("skipped "))  \(name)  \(style.dim((row.messages.first ?? "").oneLineVisible))")
      case .rejected, .disabled:
        let status = row.status == .disabled ? style.dim("disabled") : style.tone(.negative, "rejected")
        lines.append("  \(status)  \(name)  \(style.dim((row.reason ?? "").oneLineVisible))")
        let indent = String(repeating: " ", count: 14)
        for message in row.messages {
          let wrapped = TextRenderer.wrap(message.oneLineVisible, width: max(width - indent.count, 30))
          lines += wrapped.map { indent + $0 }
        }
        if directories.count > 1, !row.path.isEmpty { lines.append(indent + style.dim(row.path.oneLineVisible)) }
      }
    }
    if !conflicts.isEmpty {
      lines.append(style.bold("URN conflicts"))
      for conflict in conflicts {
        lines += TextRenderer.wrap(conflict.message.oneLineVisible, width: max(width - 4, 30)).map { "  " + $0 }
      }
    }
    if !overlaps.isEmpty {
      lines.append(style.bold("URN overlaps"))
      for overlap in overlaps {
        lines += TextRenderer.wrap(overlap.message.oneLineVisible, width: max(width - 4, 30)).map { "  " + $0 }
      }
    }
    if !identityConflicts.isEmpty {
      lines.append(style.bold("Identity conflicts"))
      for conflict in identityConflicts {
        lines += TextRenderer.wrap(conflict.message.oneLineVisible, width: max(width - 4, 30)).map { "  " + $0 }
      }
    }
    let count = { (status: Row.Status) in self.plugins.filter { $0.status == status }.count }
    let skipped = count(.skipped) > 0 ? ", \(count(.skipped)) skipped" : ""
    let disabled = count(.disabled) > 0 ? ", \(count(.disabled)) disabled" : ""
    let identities =
      identityConflicts.isEmpty ? "" : ", " + Plural.count(identityConflicts.count, "identity conflict")
    let overlapping = overlaps.isEmpty ? "" : ", " + Plural.count(overlaps.count, "URN overlap")
    let cached = plugins.filter { $0.from == ScanSource.cache.rawValue }.count
    let fromCache = cached > 0 ? " (\(cached) from the registry cache)" : ""
    lines.append(
      "\(count(.loaded)) loaded\(fromCache), \(count(.rejected)) rejected\(disabled)\(skipped), "
        + Plural.count(conflicts.count, "URN conflict") + overlapping + identities)
    return lines.joined(separator: "\n")
  }
}
