import Glibc
import Synchronization
import VivariumSupport

/// Notices a plugin that ends the process while it loads (a constructor, its
/// entry or `factories()` calling `exit`): the exit is turned into status 1
/// with a message naming the plugin, instead of the command's silent
/// success. A plugin calling `_exit` or killing itself bypasses this; a
/// probe process (the default) reports those.
enum LoadingGuard {
  private static let loading = Mutex<String?>(nil)

  /// Registers the exit handler once.
  private static let installed: Bool = {
    atexit {
      guard let path = LoadingGuard.loading.withLock({ $0 }) else { return }
      let message =
        "vivarium: error: the plugin \(TerminalText.visible(path)) ended the process while it was loading (it called exit); the host stopped. Remove it, or find where it calls exit\n"
      _ = DescriptorOutput.write(message, to: STDERR_FILENO)
      _exit(1)
    }
    return true
  }()

  /// Runs `body`, the loading of the plugin at `path`, under the guard.
  static func during<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(E) -> T {
    _ = installed
    loading.withLock { $0 = path }
    defer { loading.withLock { $0 = nil } }
    return try body()
  }
}
