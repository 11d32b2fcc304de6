import Foundation

/// The saved ``NavigationState`` of one plugin directory (or set of them),
/// in `state/navigation-KEY.json` of the data directory, written atomically
/// whenever it changes, so that a host killed at any moment leaves the last
/// state that was shown.
public final class NavigationStore {
  /// The folder of the data directory the states are saved in.
  static let folder = "state"
  /// The file.
  public let path: String
  private var saved: NavigationState?

  /// The store for the plugins loaded from `directories`, in `dataDirectory`.
  public init(dataDirectory: String, directories: [String]) {
    // The same directories however they were given: relative, through links.
    let key = directories.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path }
      .joined(separator: "\n")
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    path = "\(dataDirectory)/\(Self.folder)/navigation-\(String(hash, radix: 16)).json"
  }

  /// The saved state: nil when there is none; a failure saying why one that
  /// is there cannot be used. A file the host does not trust
  /// (``FileContents/refused(_:)``) is moved aside; one that is damaged is
  /// left alone, and replaced at the next save.
  public func load() -> Result<NavigationState?, NavigationStoreError> {
    let data: Data
    switch FileContents.read(path, limit: FileContents.Limit.navigation) {
    case .missing: return .success(nil)
    case .data(let bytes): data = bytes
    case .failed(let code):
      return .failure(
        NavigationStoreError(
          "cannot read the saved screens in \(path) (\(AtomicFile.errorText(code))); starting from the first screen"))
    case .refused(let reason):
      let fate =
        switch FileContents.setAside(path, as: "refused") {
        case .success(let aside): "they were moved to \(aside)"
        case .failure(let error): "they could not be moved aside (\(error.description))"
        }
      return .failure(
        NavigationStoreError(
          "the saved screens in \(path) are not used: \(reason); \(fate); starting from the first screen"))
    }
    guard let state = try? JSONDecoder().decode(NavigationState.self, from: data),
      state.version == NavigationState.version
    else {
      return .failure(
        NavigationStoreError(
          "the saved screens in \(path) are damaged or from another version; starting from the first screen"))
    }
    saved = state
    return .success(state)
  }

  /// Saves `state` if it differs from what was saved; an empty state is not
  /// saved (quitting detaches every screen). Throws when it cannot be written.
  public func save(_ state: NavigationState) throws {
    guard !state.isEmpty, state != saved else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(state)
    // What could not be read back at the next start is not written.
    guard data.count <= FileContents.Limit.navigation else {
      throw NavigationStoreError(
        "the screens shown were not saved to \(path): they take \(data.count) bytes, over the \(FileContents.Limit.navigation >> 20) MiB the host reads back"
      )
    }
    do {
      try AtomicFile.write(data, to: path)
    } catch {
      throw NavigationStoreError("cannot save the screens shown to \(path): \(error)")
    }
    saved = state
  }

  /// Forgets the saved state (`--fresh`).
  public func remove() {
    try? FileManager.default.removeItem(atPath: path)
    saved = nil
  }
}

/// Why the saved screens cannot be used or saved.
public struct NavigationStoreError: Error, CustomStringConvertible {
  /// What is wrong and what happens instead.
  public let description: String
  init(_ description: String) { self.description = description }
}
