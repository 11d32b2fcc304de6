import ViperKit
import ViperKitHosting

/// What one registry entry holds, written and read field by field in the
/// order of each type's declaration. A field added to one of these types
/// (the SDK's contract types, ``PluginRecord``, ``Rejection``) must be added
/// here too, and ``PluginRegistry/formatVersion`` raised:
/// `PluginRegistryTests` counts each type's fields to say so.
extension RegistryWriter {
  mutating func record(_ record: PluginRecord) {
    string(record.name)
    signed(record.sdkVersion.major)
    signed(record.sdkVersion.minor)
    signed(record.sdkVersion.patch)
    list(record.contracts) { $0.contract($1) }
    version(record.version)
    list(record.provides) { writer, provision in
      writer.string(provision.service)
      writer.version(provision.version)
      writer.list(provision.requires) { $0.requirement($1) }
      writer.services(provision.services)
    }
    strings(record.hosts)
    strings(record.topics.publishes)
    strings(record.topics.subscribes)
  }

  mutating func rejection(_ rejection: Rejection) {
    string(rejection.path)
    string(rejection.kind.rawValue)
    strings(rejection.reasons)
    strings(rejection.checks)
  }

  mutating func contract(_ contract: Contract) {
    string(contract.urn)
    signed(contract.version)
    string(contract.summary)
    list(contract.arguments) { writer, argument in
      writer.string(argument.name)
      writer.byte(argument.type.byte)
      writer.flag(argument.required)
      writer.flag(argument.defaultValue != nil)
      if let value = argument.defaultValue { writer.value(value) }
      writer.string(argument.description)
      writer.list(argument.choices) { $0.value($1) }
    }
    list(contract.inputs) { $0.message($1) }
    list(contract.outputs) { $0.message($1) }
    list(contract.slots) { writer, slot in
      writer.string(slot.name)
      writer.strings(slot.accepts)
      writer.byte(slot.kind.byte)
      writer.string(slot.description)
    }
    services(contract.services)
    list(contract.guards) { writer, guarded in
      writer.string(guarded.setting)
      writer.string(guarded.otherwise)
      writer.string(guarded.reason)
    }
    list(contract.opens) { writer, target in
      writer.byte(target.kind.byte)
      writer.string(target.urn)
      writer.types(target.arguments)
      writer.list(target.expects) { $0.message($1) }
    }
    list(contract.requires) { $0.requirement($1) }
    list(contract.settings) { writer, setting in
      writer.string(setting.key)
      writer.flag(setting.readableByOthers)
      writer.settingType(setting.type)
      writer.string(setting.description)
    }
    list(contract.commands) { writer, command in
      writer.string(command.id)
      writer.string(command.title)
      // The empty name for none: a key is never empty.
      writer.string(command.key?.name ?? "")
    }
  }

  /// A byte for its kind (0: none), then its default and its values.
  private mutating func settingType(_ type: SettingType?) {
    switch type {
    case nil: byte(0)
    case .bool(let value):
      byte(1)
      flag(value)
    case .int(let value, let range):
      byte(2)
      signed(value)
      signed(range.lowerBound)
      signed(range.upperBound)
    case .string(let value):
      byte(3)
      string(value)
    case .choice(let value, let choices):
      byte(4)
      string(value)
      strings(choices)
    case .some(_):
      // A type of a newer ViperKit than the host's: no plugin has one (a
      // plugin's minor is never newer than the host's).
      byte(0)
    }
  }

  private mutating func message(_ message: MessageSpec) {
    string(message.name)
    types(message.fields)
    string(message.description)
  }

  /// Named types, by name: the same dictionary always writes the same bytes.
  private mutating func types(_ types: [String: ArgumentType]) {
    list(types.sorted { $0.key < $1.key }) { writer, field in
      writer.string(field.key)
      writer.byte(field.value.byte)
    }
  }

  private mutating func value(_ value: ArgumentValue) {
    switch value {
    case .string(let text):
      byte(0)
      string(text)
    case .int(let number):
      byte(1)
      signed(number)
    case .bool(let flag):
      byte(2)
      self.flag(flag)
    case .double(let number):
      byte(3)
      fixed(number.bitPattern)
    @unknown default:
      // Read back as damage: the entry is a miss, and the file scanned again.
      byte(0xFF)
    }
  }

  private mutating func requirement(_ requirement: ServiceRequirement) {
    string(requirement.service)
    version(requirement.versions.lower)
    version(requirement.versions.upper)
    flag(requirement.isOptional)
  }

  private mutating func version(_ version: SemanticVersion) {
    // Never negative (SemanticVersion traps on a negative part).
    for part in [version.major, version.minor, version.patch] { unsigned(UInt64(part)) }
  }
}

extension RegistryReader {
  mutating func record() throws(RegistryDamage) -> PluginRecord {
    let name = try string()
    let sdkVersion = ViperKitVersion(major: try signed(), minor: try signed(), patch: try signed())
    let contracts = try list(atMost: PluginLimits.modules) { (reader) throws(RegistryDamage) in try reader.contract() }
    guard !contracts.isEmpty else { throw RegistryDamage("an entry has no contracts") }
    let version = try version()
    let provides = try list { (reader) throws(RegistryDamage) in
      ServiceProvision(
        service: try reader.string(), version: try reader.version(),
        requires: try reader.list { (reader) throws(RegistryDamage) in try reader.requirement() },
        services: try reader.services())
    }
    let hosts = try strings()
    return PluginRecord(
      name: name, sdkVersion: sdkVersion, contracts: contracts, version: version, provides: provides,
      hosts: hosts, topics: PluginTopics(publishes: try strings(), subscribes: try strings()))
  }

  mutating func rejection() throws(RegistryDamage) -> Rejection {
    let path = try string()
    let kindName = try string()
    guard let kind = Rejection.Kind(rawValue: kindName) else {
      throw RegistryDamage("a refusal is of no kind this host knows ('\(kindName)')")
    }
    let reasons = try strings()
    let checks = try strings()
    guard checks.count == reasons.count else { throw RegistryDamage("a refusal has a check for each reason") }
    return Rejection(path, kind, reasons, checks: checks)
  }

  mutating func contract() throws(RegistryDamage) -> Contract {
    let urn = try string()
    let version = try signed()
    let summary = try string()
    let arguments = try list { (reader) throws(RegistryDamage) in
      let name = try reader.string()
      let type = try reader.one(of: ArgumentType.allCases, "an argument type")
      let required = try reader.flag()
      let defaultValue = try reader.flag() ? try reader.value() : nil
      return ArgumentSpec(
        name: name, type: type, required: required, defaultValue: defaultValue, description: try reader.string(),
        choices: try reader.list { (reader) throws(RegistryDamage) in try reader.value() })
    }
    let inputs = try list { (reader) throws(RegistryDamage) in try reader.message() }
    let outputs = try list { (reader) throws(RegistryDamage) in try reader.message() }
    let slots = try list { (reader) throws(RegistryDamage) in
      SlotSpec(
        name: try reader.string(), accepts: try reader.strings(),
        kind: try reader.one(of: [SlotKind.single, .stack, .tabs], "a slot kind"),
        description: try reader.string())
    }
    let services = try services()
    let guards = try list { (reader) throws(RegistryDamage) in
      RouteGuard(requires: try reader.string(), otherwise: try reader.string(), reason: try reader.string())
    }
    let opens = try list { (reader) throws(RegistryDamage) in
      NavigationTarget(
        try reader.one(of: NavigationTarget.Kind.allCases, "a navigation kind"), try reader.string(),
        arguments: try reader.types(),
        expects: try reader.list { (reader) throws(RegistryDamage) in try reader.message() })
    }
    let requires = try list { (reader) throws(RegistryDamage) in try reader.requirement() }
    let settings = try list { (reader) throws(RegistryDamage) in
      let key = try reader.string()
      let readable = try reader.flag()
      guard let type = try reader.settingType() else { return SettingDeclaration(key, readableByOthers: readable) }
      return SettingDeclaration(key, type, description: try reader.string(), readableByOthers: readable)
    }
    let commands = try list { (reader) throws(RegistryDamage) in
      let (id, title, name) = (try reader.string(), try reader.string(), try reader.string())
      guard !name.isEmpty else { return CommandSpec(id, title: title) }
      // Only contracts that passed the contract checks are kept: their keys read.
      guard let key = CommandCheck.key(named: name) else { throw RegistryDamage("'\(name)' is not a command key") }
      return CommandSpec(id, title: title, key: key)
    }
    return Contract(
      urn: urn, version: version, summary: summary, arguments: arguments, inputs: inputs, outputs: outputs,
      slots: slots, services: services, guards: guards, opens: opens, requires: requires, settings: settings,
      commands: commands)
  }

  /// What ``RegistryWriter``'s `settingType` wrote; an untyped
  /// declaration's empty description is read past.
  private mutating func settingType() throws(RegistryDamage) -> SettingType? {
    switch try byte() {
    case 0:
      _ = try string()
      return nil
    case 1: return .bool(default: try flag())
    case 2:
      let value = try signed()
      let (lowest, highest) = (try signed(), try signed())
      guard lowest <= highest else { throw RegistryDamage("a setting's range ends below its start") }
      return .int(default: value, in: lowest...highest)
    case 3: return .string(default: try string())
    case 4: return .choice(default: try string(), among: try strings())
    case let other: throw RegistryDamage("\(other) is not a setting type")
    }
  }

  private mutating func message() throws(RegistryDamage) -> MessageSpec {
    MessageSpec(name: try string(), fields: try types(), description: try string())
  }

  private mutating func types() throws(RegistryDamage) -> [String: ArgumentType] {
    // Each field takes at least two bytes: an empty name's length and a type.
    let count = try count(each: 2)
    var types: [String: ArgumentType] = [:]
    for _ in 0..<count {
      let name = try string()
      guard types.updateValue(try one(of: ArgumentType.allCases, "an argument type"), forKey: name) == nil else {
        throw RegistryDamage("a name appears twice among \(count) fields")
      }
    }
    return types
  }

  private mutating func value() throws(RegistryDamage) -> ArgumentValue {
    switch try byte() {
    case 0: .string(try string())
    case 1: .int(try signed())
    case 2: .bool(try flag())
    case 3: .double(Double(bitPattern: try fixed()))
    case let other: throw RegistryDamage("a value is of kind \(other)")
    }
  }

  private mutating func requirement() throws(RegistryDamage) -> ServiceRequirement {
    let service = try string()
    let lower = try version()
    let upper = try version()
    // A range's bounds in any other order would trap.
    guard lower <= upper else { throw RegistryDamage("a version range ends before it starts") }
    return ServiceRequirement(service: service, versions: VersionRange(lower..<upper), isOptional: try flag())
  }

  private mutating func version() throws(RegistryDamage) -> SemanticVersion {
    SemanticVersion(try versionPart(), try versionPart(), try versionPart())
  }

  /// A part of a ``SemanticVersion``, which may not be negative.
  private mutating func versionPart() throws(RegistryDamage) -> Int {
    let part = try unsigned()
    guard part <= UInt64(Int.max) else { throw RegistryDamage("a version's part is \(part)") }
    return Int(part)
  }
}

// Each enumeration's byte, named case by case: reordering the SDK's cases
// changes nothing, and a case added there draws a warning here (which the
// build does not allow) until it has a byte of its own; until then a value
// of it is written as a byte no reader takes, so its entry is a miss.

/// An enumeration the registry writes as one byte.
private protocol RegistryByte {
  var byte: UInt8 { get }
}

extension RegistryReader {
  /// The one of `cases` whose byte is next, named `what` when none is.
  fileprivate mutating func one<Case: RegistryByte>(of cases: [Case], _ what: String) throws(RegistryDamage) -> Case {
    let next = try byte()
    guard let found = cases.first(where: { $0.byte == next }) else { throw RegistryDamage("\(what) is \(next)") }
    return found
  }
}

extension ArgumentType: RegistryByte {
  fileprivate var byte: UInt8 {
    switch self {
    case .string: 0
    case .int: 1
    case .bool: 2
    case .double: 3
    @unknown default: 0xFF
    }
  }
}

extension SlotKind: RegistryByte {
  fileprivate var byte: UInt8 {
    switch self {
    case .single: 0
    case .stack: 1
    case .tabs: 2
    @unknown default: 0xFF
    }
  }
}

extension NavigationTarget.Kind: RegistryByte {
  fileprivate var byte: UInt8 {
    switch self {
    case .push: 0
    case .present: 1
    case .replace: 2
    @unknown default: 0xFF
    }
  }
}
