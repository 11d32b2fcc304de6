import ViperKit

/// Contracts as bytes: how a plugin process reports its contracts in its
/// `ready` message, and how the registry cache keeps them. Each field is
/// written in the order it is declared; `WireContractsTests` counts the
/// fields of each type, so a field added to the SDK fails a test until it
/// is written here too.
extension WireWriter {
  mutating func contract(_ contract: Contract) {
    string(contract.urn)
    int(contract.version)
    string(contract.summary)
    array(contract.arguments) { $0.argument($1) }
    array(contract.inputs) { $0.messageSpec($1) }
    array(contract.outputs) { $0.messageSpec($1) }
    array(contract.slots) { $0.slot($1) }
    array(contract.services) { $0.string($1) }
    array(contract.guards) { writer, guarded in
      writer.string(guarded.setting)
      writer.string(guarded.otherwise)
      writer.string(guarded.reason)
    }
    array(contract.opens) { writer, target in
      writer.choice(target.kind, NavigationTarget.Kind.allCases)
      writer.string(target.urn)
      writer.typeMap(target.arguments)
      writer.array(target.expects) { $0.messageSpec($1) }
    }
  }

  private mutating func argument(_ spec: ArgumentSpec) {
    string(spec.name)
    argumentType(spec.type)
    bool(spec.required)
    optional(spec.defaultValue) { $0.value($1) }
    string(spec.description)
    array(spec.choices) { $0.value($1) }
  }

  private mutating func messageSpec(_ spec: MessageSpec) {
    string(spec.name)
    typeMap(spec.fields)
    string(spec.description)
  }

  /// Names and their types (a message's fields, a target's arguments), sorted.
  private mutating func typeMap(_ types: [String: ArgumentType]) {
    array(types.sorted { $0.key < $1.key }) { writer, entry in
      writer.string(entry.key)
      writer.argumentType(entry.value)
    }
  }

  private mutating func slot(_ slot: SlotSpec) {
    string(slot.name)
    array(slot.accepts) { $0.string($1) }
    choice(slot.kind, WireCases.slotKinds)
    string(slot.description)
  }

  private mutating func argumentType(_ type: ArgumentType) {
    choice(type, ArgumentType.allCases)
  }
}

extension WireReader {
  mutating func contract() throws(WireError) -> Contract {
    Contract(
      urn: try string(), version: try int(), summary: try string(),
      arguments: try array { (reader: inout WireReader) throws(WireError) in try reader.argument() },
      inputs: try array { (reader: inout WireReader) throws(WireError) in try reader.messageSpec() },
      outputs: try array { (reader: inout WireReader) throws(WireError) in try reader.messageSpec() },
      slots: try array { (reader: inout WireReader) throws(WireError) in try reader.slot() },
      services: try array { (reader: inout WireReader) throws(WireError) in try reader.string() },
      guards: try array { (reader: inout WireReader) throws(WireError) in
        RouteGuard(requires: try reader.string(), otherwise: try reader.string(), reason: try reader.string())
      },
      opens: try array { (reader: inout WireReader) throws(WireError) in
        NavigationTarget(
          try reader.choice(NavigationTarget.Kind.allCases, "navigation kind"), try reader.string(),
          arguments: try reader.typeMap { "the argument '\($0)' of a navigation target comes twice" },
          expects: try reader.array { (reader: inout WireReader) throws(WireError) in try reader.messageSpec() })
      })
  }

  private mutating func argument() throws(WireError) -> ArgumentSpec {
    ArgumentSpec(
      name: try string(), type: try argumentType(), required: try bool(),
      defaultValue: try optional { (reader: inout WireReader) throws(WireError) in try reader.value() },
      description: try string(),
      choices: try array { (reader: inout WireReader) throws(WireError) in try reader.value() })
  }

  private mutating func messageSpec() throws(WireError) -> MessageSpec {
    let name = try string()
    let fields = try typeMap { "the field '\($0)' of message '\(name)' comes twice" }
    return MessageSpec(name: name, fields: fields, description: try string())
  }

  /// Names and their types, refusing a name that comes twice with `twice`.
  private mutating func typeMap(twice: (String) -> String) throws(WireError) -> [String: ArgumentType] {
    let pairs = try array { (reader: inout WireReader) throws(WireError) in
      (try reader.string(), try reader.argumentType())
    }
    var types: [String: ArgumentType] = [:]
    for (name, type) in pairs {
      guard types.updateValue(type, forKey: name) == nil else { throw WireError(twice(name)) }
    }
    return types
  }

  private mutating func slot() throws(WireError) -> SlotSpec {
    SlotSpec(
      name: try string(), accepts: try array { (reader: inout WireReader) throws(WireError) in try reader.string() },
      kind: try choice(WireCases.slotKinds, "slot kind"), description: try string())
  }

  private mutating func argumentType() throws(WireError) -> ArgumentType {
    try choice(ArgumentType.allCases, "argument type")
  }
}
