import Foundation
import Synchronization

/// Bounds a hang in code that runs in the test process itself, where there
/// is no child to kill: should `body` not return within a generous
/// `seconds` (a stuck loop, not a slow machine), the whole test run ends at
/// once, naming what hung, instead of waiting forever.
enum HangGuard {
  @discardableResult
  static func bounding<T>(_ what: String, seconds: Int = 300, _ body: () throws -> T) rethrows -> T {
    let done = Atomic(false)
    let watchdog = DispatchWorkItem {
      guard !done.load(ordering: .acquiring) else { return }
      FileHandle.standardError.write(Data("HANG: \(what) did not return within \(seconds) s\n".utf8))
      _exit(70)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: watchdog)
    defer {
      done.store(true, ordering: .releasing)
      watchdog.cancel()
    }
    return try body()
  }
}
