import Foundation
import ViperKitHosting
import VivariumSupport

/// `vivarium-app.json` in a plugin directory: the application its plugins
/// make up. `{"name": "…", "start": "URN or deep link", "scheme": "…"}`;
/// `scheme` is optional and lets deep links be written `scheme://a:b/c:d`.
package struct AppManifest: Codable, Sendable, Equatable {
  /// The file name the host looks for.
  package static let fileName = "vivarium-app.json"

  /// The application's name, shown when a session starts.
  package let name: String
  /// The URN or deep link of the first screen.
  package let start: String
  /// The URL scheme of the app's deep links, if it has one.
  package let scheme: String?
  /// The plugin to use for each business service several plugins provide:
  /// `"providers": {"weather": "WeatherPlugin"}` (optional).
  package let providers: [String: String]?
  /// Where the manifest was read from.
  package var path: String = ""

  private enum CodingKeys: String, CodingKey { case name, start, scheme, providers }

  /// A manifest with these parts, as if read from `path`.
  package init(name: String, start: String, scheme: String?, providers: [String: String]? = nil, path: String = "") {
    self.name = name
    self.start = start
    self.scheme = scheme
    self.providers = providers
    self.path = path
  }

  /// A manifest read from `path`, or a message saying what to fix. It is
  /// read as the host reads its own files (``FileContents``): a FIFO cannot
  /// hang it, and it must be a regular file, through links, that only you or
  /// root can write, as the plugins beside it.
  package static func read(_ path: String) -> Result<AppManifest, ManifestError> {
    let data: Data
    switch FileContents.read(
      DirectoryChecks.realPath(path) ?? path, limit: FileContents.Limit.appManifest, holds: .code)
    {
    case .data(let read): data = read
    case .missing:
      return .failure(ManifestError(.missing, path: path, reason: "does not exist, or is a link to nothing"))
    case .failed(let code):
      return .failure(
        ManifestError(.unreadable, path: path, reason: "cannot be read: \(String(cString: strerror(code)))"))
    case .refused(let why): return .failure(ManifestError(.untrusted, path: path, reason: "is not used: \(why)"))
    }
    var manifest: AppManifest
    do {
      manifest = try JSONDecoder().decode(AppManifest.self, from: data)
    } catch let DecodingError.keyNotFound(key, _) {
      return .failure(
        ManifestError(
          .missingKey, path: path, reason: "has no \"\(key.stringValue)\"; it needs \"name\" and \"start\""))
    } catch {
      return .failure(
        ManifestError(
          .notJSON, path: path, reason: "is not valid JSON of the form {\"name\": …, \"start\": …, \"scheme\": …}"))
    }
    manifest.path = path
    if let scheme = manifest.scheme, scheme.range(of: "^[a-z][a-z0-9+.-]*$", options: .regularExpression) == nil {
      return .failure(
        ManifestError(
          .badScheme, path: path, reason: "has the scheme '\(scheme)'; use lower-case letters, digits, '+', '-', '.'"))
    }
    return .success(manifest)
  }

  /// The manifest in the first of `directories` that holds one; an error if
  /// it is malformed or several directories hold one.
  package static func find(in directories: [String]) -> Result<AppManifest, ManifestError>? {
    let paths = directories.map { ($0 as NSString).appendingPathComponent(fileName) }
      .filter { FileManager.default.fileExists(atPath: $0) }
    guard let first = paths.first else { return nil }
    guard paths.count == 1 else {
      return .failure(
        ManifestError(
          .several, path: first, reason: "is one of several app manifests (\(paths.joined(separator: ", "))); keep one")
      )
    }
    return read(first)
  }
}

/// A manifest the host cannot use, and why.
package struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Stable names of the problems, for tests.
  package enum Kind: String, Sendable {
    /// No file, or a link to nothing.
    case missing
    /// The file could not be read.
    case unreadable
    /// Not a file the host trusts (``FileContents/read(_:limit:holds:)``).
    case untrusted
    /// `name` or `start` is missing.
    case missingKey = "missing-key"
    /// Not JSON of the manifest's form.
    case notJSON = "not-json"
    /// A `scheme` that is not a URL scheme.
    case badScheme = "bad-scheme"
    /// More than one plugin directory holds a manifest.
    case several
  }

  /// Which problem it is.
  package let kind: Kind
  /// The manifest file.
  package let path: String
  /// What is wrong with it.
  package let reason: String

  init(_ kind: Kind, path: String, reason: String) {
    self.kind = kind
    self.path = path
    self.reason = reason
  }

  /// `PATH REASON`.
  package var description: String { "\(path) \(reason)" }
}
