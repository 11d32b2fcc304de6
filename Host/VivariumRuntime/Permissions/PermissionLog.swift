import Foundation
import VivariumLoading
import VivariumSupport

/// How one use of a permission ended.
package enum PermissionOutcome: String, Sendable, Codable, CaseIterable {
  /// Granted (kept in the store, or `--allow`): it went ahead.
  case allowed
  /// The person denied it.
  case denied
  /// Never decided, and nobody to ask (a script, a pipe, `render`).
  case notGranted = "not-granted"
  /// The plugin does not declare it.
  case undeclared
}

/// One use of a permission, as a line of the log.
package struct PermissionUse: Codable, Equatable, Sendable {
  /// When, in seconds since 1970 (the host's clock: virtual under `VIVARIUM_NOW`).
  package var time: Double
  /// The plugin's declared name.
  package var plugin: String
  /// Its file.
  package var file: String
  /// `KIND:SCOPE`.
  package var permission: String
  /// What it was used for: `GET https://…`.
  package var what: String
  /// How it ended.
  package var outcome: PermissionOutcome
  /// How many uses of the same kind (plugin file, permission, outcome) the
  /// line stands for, up to `time`, when more than one: refusals are
  /// counted, not each logged. Nil: one.
  package var count: Int? = nil
}

/// Every use of a permission, one JSON line each (Deno's audit log): the
/// uses that went ahead in `permission-uses.jsonl` in the data directory,
/// those refused in `permission-refusals.jsonl`, so that no number of
/// refusals pushes an allowed use out. When a file passes ``sizeLimit`` it
/// becomes `NAME.1.jsonl` (the one before is dropped) and a new one starts.
package struct PermissionLog: Sendable {
  /// The log's size past which a new one is started: a line under the most
  /// the host reads back of it.
  static let sizeLimit = FileContents.Limit.permissionUses - (1 << 20)
  /// The file of the uses that went ahead.
  package let path: String
  /// The file of the uses refused.
  package let refusalsPath: String

  /// The log in `dataDirectory`.
  package init(dataDirectory: String) {
    path = dataDirectory + "/permission-uses.jsonl"
    refusalsPath = dataDirectory + "/permission-refusals.jsonl"
  }

  /// Appends `use`; a failure is returned for the host's log, never thrown
  /// at the plugin.
  func append(_ use: PermissionUse) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard var line = try? encoder.encode(use) else { return nil }
    line.append(UInt8(ascii: "\n"))
    let path = use.outcome == .allowed ? self.path : refusalsPath
    if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > Self.sizeLimit {
      _ = rename(path, path.replacingOccurrences(of: ".jsonl", with: ".1.jsonl"))
    }
    // Never through a link, and never waiting on a FIFO, as vivarium.log.
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return "cannot write \(path): \(AtomicFile.errorText(errno))" }
    defer { close(descriptor) }
    let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    return written == line.count ? nil : "cannot write \(path): \(AtomicFile.errorText(errno))"
  }

  /// Every use recorded, oldest first (of both files and the ones before
  /// them), and how many lines could not be read; a file that cannot be
  /// used (``FileContents/read(_:limit:holds:)``) counts as one, with why.
  package func uses() -> (uses: [PermissionUse], unreadable: Int, problems: [String]) {
    var uses: [PermissionUse] = []
    var unreadable = 0
    var problems: [String] = []
    let files = [path, refusalsPath].flatMap { [$0.replacingOccurrences(of: ".jsonl", with: ".1.jsonl"), $0] }
    for file in files {
      let data: Data
      switch FileContents.read(file, limit: FileContents.Limit.permissionUses) {
      case .missing: continue
      case .data(let read): data = read
      case .failed(let code):
        problems.append("\(file) cannot be read (\(AtomicFile.errorText(code)))")
        continue
      case .refused(let reason):
        problems.append("\(file) is not used (\(reason))")
        continue
      }
      for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
        if let use = try? JSONDecoder().decode(PermissionUse.self, from: Data(line)) {
          uses.append(use)
        } else {
          unreadable += 1
        }
      }
    }
    // Each file is oldest first; together, by time (a sort that keeps the
    // order of uses of one time).
    let ordered = uses.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
    return (ordered.map(\.element), unreadable, problems)
  }
}
