import ViperKit

/// A plugin whose code declares other contracts than what was recorded of it
/// without running it (its registry entry): it is refused at activation,
/// with both sides named, since the host routed by what was recorded.
struct ContractDisagreement {
  let path: String
  /// One line per module that differs.
  let differences: [String]
  let source: ScanSource

  /// Nil when `recorded` and `loaded` are the same contracts, in the same order.
  init?(path: String, recorded: [Contract], loaded: [Contract], source: ScanSource) {
    guard recorded != loaded else { return nil }
    self.path = path
    self.source = source
    let said = source.recordName
    let before = Dictionary(recorded.map { ($0.urn, $0) }, uniquingKeysWith: { first, _ in first })
    let after = Dictionary(loaded.map { ($0.urn, $0) }, uniquingKeysWith: { first, _ in first })
    var lines: [String] = []
    for contract in recorded where after[contract.urn] == nil {
      lines.append("\(said) declares \(contract.urn), its code does not")
    }
    for contract in loaded {
      guard let old = before[contract.urn] else {
        lines.append("its code declares \(contract.urn), \(said) does not")
        continue
      }
      let fields = Self.differingFields(old, contract)
      if !fields.isEmpty {
        lines.append("\(contract.urn): its \(fields.joined(separator: ", ")) differ between \(said) and its code")
      }
    }
    if lines.isEmpty { lines.append("its code declares the same modules as \(said), in another order") }
    differences = lines
  }

  private static func differingFields(_ one: Contract, _ other: Contract) -> [String] {
    var fields: [String] = []
    if one.version != other.version { fields.append("version (\(one.version) against \(other.version))") }
    if one.summary != other.summary { fields.append("summary") }
    if one.arguments != other.arguments { fields.append("arguments") }
    if one.inputs != other.inputs { fields.append("inputs") }
    if one.outputs != other.outputs { fields.append("outputs") }
    if one.slots != other.slots { fields.append("slots") }
    if one.services != other.services { fields.append("services") }
    if one.guards != other.guards { fields.append("guards") }
    if one.opens != other.opens { fields.append("opens") }
    if one.requires != other.requires { fields.append("requires") }
    if one.settings != other.settings { fields.append("settings") }
    if one.commands != other.commands { fields.append("commands") }
    return fields
  }

  var rejection: Rejection {
    Rejection(
      path, .contractsDisagree,
      differences
        + [
          "the host routed by \(source.recordName), so it does not run this build; \(source.remedy)"
        ])
  }
}

extension ScanSource {
  /// What the record is called in messages.
  var recordName: String {
    switch self {
    case .cache: "the registry cache"
    case .manifest: "its manifest"
    case .probe, .loaded: "the scan at start"
    }
  }

  /// What to do when the plugin disagrees with its record.
  var remedy: String {
    switch self {
    case .manifest:
      "make the manifest again from the plugin's contracts and rebuild (a manifest written by hand, or one left from an earlier build, goes stale)"
    case .cache, .probe, .loaded:
      "the file changed while the host ran, or its contracts are not the same each time: run again, and make each contract a static value"
    }
  }
}
