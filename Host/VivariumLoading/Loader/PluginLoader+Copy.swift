import CVivariumSystem
import Foundation
import Glibc
import VivariumSupport

extension PluginLoader {
  /// Checks `path` as ``load(_:)`` does, then loads a private copy of it:
  /// a rebuilt plugin whose earlier build is loaded in this process already.
  ///
  /// `dlopen` returns the library already loaded for a file it has seen
  /// (same device and inode, as when a build overwrites the file in place),
  /// so the checked bytes are copied into a file in memory, a new inode,
  /// and that is loaded; the libraries it needs come from beside `path`.
  /// The earlier build stays mapped: it is never closed (see the type's
  /// notes), so each reload costs the memory of one more copy.
  package func loadCopy(_ path: String) -> PluginOutcome {
    do {
      return loadCopy(of: try Self.openChecked(path))
    } catch {
      return .rejected(error)
    }
  }

  /// Loads a private copy of `original`, a file opened and checked by
  /// ``openChecked(_:)``, and closes it.
  func loadCopy(of original: PluginFile) -> PluginOutcome {
    defer { original.close() }
    let path = original.path
    let name = PathName.lastComponent(path)
    let copy = vivarium_memfd(name)
    guard copy >= 0 else {
      return .rejected(
        Rejection(path, .unreadable, "cannot make a copy to load: \(String(cString: strerror(errno)))"))
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var offset = 0
    while offset < original.size {
      let read = buffer.withUnsafeMutableBytes { pread(original.descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      let written = read > 0 ? buffer.withUnsafeBytes { write(copy, $0.baseAddress, read) } : -1
      guard read > 0, written == read else {
        _ = Glibc.close(copy)
        return .rejected(
          Rejection(path, .truncated, "it changed while the host copied it; the next build will be loaded"))
      }
      offset += read
    }
    return load(
      PluginFile(path: path, descriptor: copy, key: original.key, origin: original.realPath))
  }
}
