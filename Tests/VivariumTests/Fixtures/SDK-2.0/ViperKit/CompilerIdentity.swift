import CViperKit

/// Identifies the Swift compiler that compiled the code calling it.
///
/// Swift has no stable ABI on Linux, so the host refuses a plugin compiled by
/// another toolchain than its own. Because this function is emitted into the
/// caller, a plugin gets the identity of the compiler that built the plugin,
/// and the host that of the compiler that built the host.
///
/// The result reads like `Swift 6.3.1 (clang 21.0.0 …)`; compare it whole.
@_alwaysEmitIntoClient
public func swiftCompilerIdentity() -> String {
  "Swift \(_swiftLanguageCompilerVersion()) (clang \(String(cString: vk_clang_version())))"
}

/// The `major.minor[.patch]` of the compiler building the caller, as far as
/// `#if compiler` can tell. Internal to ``swiftCompilerIdentity()``.
@_alwaysEmitIntoClient
public func _swiftLanguageCompilerVersion() -> String {
  #if compiler(>=7.0)
    return "7 or later"
  #elseif compiler(>=6.4)
    return "6.4"
  #elseif compiler(>=6.3.2)
    return "6.3.2"
  #elseif compiler(>=6.3.1)
    return "6.3.1"
  #elseif compiler(>=6.3)
    return "6.3"
  #elseif compiler(>=6.2)
    return "6.2"
  #elseif compiler(>=6.1)
    return "6.1"
  #else
    return "6.0"
  #endif
}
