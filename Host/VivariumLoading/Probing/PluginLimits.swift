/// How much one plugin may offer, and the byte limits sized from it: the
/// probe's report channel (``ChildProcess/replyLimit``), the manifest
/// section (``ELFFile/manifestLimit``) and the wire frame a plugin process
/// sends its contracts in (``WireProtocol/messageLimit``). A plugin past them
/// is refused with its count and the limit, never reported as crashed.
package enum PluginLimits {
  /// The most modules one plugin may offer.
  package static let modules = 100_000
  /// The most bytes a plugin's contracts may take as the host receives them
  /// (JSON from a probe or a manifest, the wire's own encoding from a plugin
  /// process): 100,000 contracts as rich as the richest sample module's
  /// take about 73 MiB as JSON and 34 MiB on the wire (PluginLimitsTests).
  package static let contractBytes = 128 << 20

  /// Why a plugin offering `count` modules, whose contracts take `bytes`
  /// bytes as `what` (e.g. "the probe's report"), is refused; nil when it
  /// is within the limits.
  static func problem(count: Int, bytes: Int? = nil, as what: String = "") -> String? {
    if count > modules {
      return "it offers \(count) modules, more than the \(modules) a plugin may offer; split it into several plugins"
    }
    return bytes.flatMap { $0 > contractBytes ? problem(bytes: $0, as: what, count: count) : nil }
  }

  /// What is wrong with contracts (`count` of them, when known) that take
  /// `bytes` bytes as `what`, over ``contractBytes``.
  static func problem(bytes: Int, as what: String, count: Int? = nil) -> String {
    let contracts = count.map { "its \($0) contracts" } ?? "its contracts"
    return
      "\(contracts) take \(bytes) bytes as \(what), more than the limit of \(contractBytes) bytes (\(contractBytes >> 20) MiB) for one plugin; shorten their descriptions or split it into several plugins"
  }

  /// ``problem(count:bytes:as:)`` as a rejection of `path`.
  package static func rejection(_ path: String, count: Int, bytes: Int? = nil, as what: String = "") -> Rejection? {
    problem(count: count, bytes: bytes, as: what).map { Rejection(path, .tooManyModules, $0) }
  }
}
