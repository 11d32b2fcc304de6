import Foundation
import ViperKit

/// The SDK's values on the wire: views, events, messages and the small
/// enums, each case by its number.
extension WireWriter {
  mutating func value(_ value: ArgumentValue) {
    switch value {
    case .string(let text):
      byte(0)
      string(text)
    case .int(let number):
      byte(1)
      int(number)
    case .bool(let flag):
      byte(2)
      bool(flag)
    case .double(let number):
      byte(3)
      double(number)
    @unknown default:
      // Host and plugin process link the one ViperKit: no case is unknown.
      byte(0)
      string("\(value)")
    }
  }

  mutating func fields(_ fields: [String: ArgumentValue]) {
    array(fields.sorted { $0.key < $1.key }) { writer, field in
      writer.string(field.key)
      writer.value(field.value)
    }
  }

  mutating func message(_ message: Message) {
    string(message.name)
    fields(message.fields)
  }

  mutating func origin(_ origin: MessageOrigin) {
    switch origin {
    case .parent(let urn):
      byte(0)
      string(urn)
    case .child(let slot, let urn):
      byte(1)
      string(slot)
      string(urn)
    case .opened(let urn):
      byte(2)
      string(urn)
    @unknown default:
      byte(0)
      string("")
    }
  }

  mutating func event(_ event: ViewEvent) {
    switch event {
    case .tap(let button):
      byte(0)
      string(button)
    case .select(let list, let row):
      byte(1)
      string(list)
      string(row)
    case .type(let field, let text):
      byte(2)
      string(field)
      string(text)
    @unknown default:
      // Host and plugin process link the one ViperKit: no case is unknown.
      byte(0)
      string("")
    }
  }

  mutating func tone(_ tone: Tone) { choice(tone, WireCases.tones) }

  mutating func node(_ node: ViewNode) {
    switch node {
    case .text(let text, let tone):
      byte(0)
      string(text)
      self.tone(tone)
    case .heading(let text):
      byte(1)
      string(text)
    case .list(let id, let rows):
      byte(2)
      string(id)
      array(rows) { writer, row in
        writer.string(row.id)
        writer.string(row.title)
        writer.string(row.detail)
        writer.optional(row.marker) { writer, marker in
          writer.tone(marker.tone)
          writer.string(marker.label)
        }
      }
    case .button(let id, let title):
      byte(3)
      string(id)
      string(title)
    case .field(let id, let label, let value, let placeholder):
      byte(4)
      string(id)
      string(label)
      string(value)
      string(placeholder)
    case .secretField(let id, let label, let length, let placeholder):
      byte(5)
      string(id)
      string(label)
      int(length)
      string(placeholder)
    case .stack(let axis, let children):
      byte(6)
      bool(axis == .horizontal)
      array(children) { writer, child in writer.node(child) }
    case .slot(let name):
      byte(7)
      string(name)
    case .notice(let tone, let text):
      byte(8)
      self.tone(tone)
      string(text)
    @unknown default:
      byte(0)
      string("")
      self.tone(.normal)
    }
  }

  mutating func roles(_ roles: [WireRole]) {
    array(roles) { writer, role in
      writer.choice(role.role, WireCases.roles)
      writer.string(role.typeName)
    }
  }
}

extension WireReader {
  mutating func value() throws(WireError) -> ArgumentValue {
    switch try byte() {
    case 0: return .string(try string())
    case 1: return .int(try int())
    case 2: return .bool(try bool())
    case 3: return .double(try double())
    case let other: throw WireError("argument value kind \(other) is not one this host knows")
    }
  }

  mutating func fields() throws(WireError) -> [String: ArgumentValue] {
    let pairs = try array { (reader: inout WireReader) throws(WireError) in (try reader.string(), try reader.value()) }
    var fields: [String: ArgumentValue] = [:]
    for (name, value) in pairs {
      guard fields.updateValue(value, forKey: name) == nil else { throw WireError("the field '\(name)' comes twice") }
    }
    return fields
  }

  mutating func message() throws(WireError) -> Message {
    Message(try string(), try fields())
  }

  mutating func origin() throws(WireError) -> MessageOrigin {
    switch try byte() {
    case 0: return .parent(urn: try string())
    case 1: return .child(slot: try string(), urn: try string())
    case 2: return .opened(urn: try string())
    case let other: throw WireError("message origin \(other) is not one this host knows")
    }
  }

  mutating func event() throws(WireError) -> ViewEvent {
    switch try byte() {
    case 0: return .tap(button: try string())
    case 1: return .select(list: try string(), row: try string())
    case 2: return .type(field: try string(), text: try string())
    case let other: throw WireError("view event \(other) is not one this host knows")
    }
  }

  mutating func tone() throws(WireError) -> Tone { try choice(WireCases.tones, "tone") }

  mutating func node() throws(WireError) -> ViewNode {
    try nested { (reader: inout WireReader) throws(WireError) in
      switch try reader.byte() {
      case 0: return .text(try reader.string(), tone: try reader.tone())
      case 1: return .heading(try reader.string())
      case 2:
        let id = try reader.string()
        let rows = try reader.array { (reader: inout WireReader) throws(WireError) in
          ListRow(
            id: try reader.string(), title: try reader.string(), detail: try reader.string(),
            marker: try reader.optional { (reader: inout WireReader) throws(WireError) in
              Marker(try reader.tone(), try reader.string())
            })
        }
        return .list(id: id, rows: rows)
      case 3: return .button(id: try reader.string(), title: try reader.string())
      case 4:
        return .field(
          id: try reader.string(), label: try reader.string(), value: try reader.string(),
          placeholder: try reader.string())
      case 5:
        return .secretField(
          id: try reader.string(), label: try reader.string(), length: try reader.int(),
          placeholder: try reader.string())
      case 6:
        let axis: Axis = try reader.bool() ? .horizontal : .vertical
        return .stack(axis, try reader.array { (reader: inout WireReader) throws(WireError) in try reader.node() })
      case 7: return .slot(try reader.string())
      case 8: return .notice(try reader.tone(), try reader.string())
      case let other: throw WireError("view element kind \(other) is not one this host knows")
      }
    }
  }

  mutating func roles() throws(WireError) -> [WireRole] {
    try array { (reader: inout WireReader) throws(WireError) in
      WireRole(role: try reader.choice(WireCases.roles, "role"), typeName: try reader.string())
    }
  }
}

/// The cases of the SDK's small enums, numbered by their place here.
enum WireCases {
  static let tones: [Tone] = [.normal, .muted, .info, .positive, .warning, .negative]
  static let roles: [Role] = [.view, .presenter, .interactor, .router]
  static let lifecycle: [LifecycleEvent] = [.attach, .appear, .disappear, .detach]
  static let levels: [LogLevel] = [.debug, .info, .warning, .error]
  static let slotKinds: [SlotKind] = [.single, .stack, .tabs]
}
