import CVivariumSystem
import Foundation

/// Signals as events: each one the process gets is handed to `deliver` on a
/// thread of its own, instead of its default action. The handler only writes
/// the signal's number to a pipe (all a signal handler may safely do).
package enum SignalPipe {
  /// Starts delivering `signals`; false if they already go to a pipe or the
  /// pipe cannot be made.
  package static func start(_ signals: [Int32], deliver: @escaping @Sendable (Int32) -> Void) -> Bool {
    let descriptor = signals.withUnsafeBufferPointer { vivarium_signal_pipe($0.baseAddress, Int32($0.count)) }
    guard descriptor >= 0 else { return false }
    Thread {
      var byte: UInt8 = 0
      while true {
        let count = read(descriptor, &byte, 1)
        if count == 1 {
          deliver(Int32(byte))
        } else if count < 0, errno == EINTR {
          continue
        } else {
          return
        }
      }
    }.start()
    return true
  }
}
