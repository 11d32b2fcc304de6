/// Path arithmetic on path strings, without touching the file system.
///
/// Foundation's `NSString.deletingLastPathComponent` traps on a relative
/// path with no slash inside it ("plugins", "a/") in the toolchain the host
/// is built with, so the host takes a path's parent here instead.
package enum PathName {
  /// The directory part of `path`, as `dirname` gives it: "a/b" → "a",
  /// "/a" → "/", "a" and "a/" → ".", "/" → "/". Trailing and doubled
  /// slashes are dropped.
  package static func parent(_ path: String) -> String {
    var rest = Substring(path)
    while rest.count > 1, rest.last == "/" { rest = rest.dropLast() }
    guard let slash = rest.lastIndex(of: "/") else { return "." }
    var head = rest[..<slash]
    while head.last == "/" { head = head.dropLast() }
    return head.isEmpty ? "/" : String(head)
  }

  /// The last component of `path`: "a/b.so" → "b.so", "a/" → "a",
  /// "/" → "/", "" → "". What `NSString.lastPathComponent` gives, without
  /// bridging (a scan takes the name of every plugin file).
  package static func lastComponent(_ path: String) -> String {
    var rest = Substring(path)
    while rest.count > 1, rest.last == "/" { rest = rest.dropLast() }
    guard rest != "/", let slash = rest.lastIndex(of: "/") else { return String(rest) }
    return String(rest[rest.index(after: slash)...])
  }
}
