import ViperKit
import ViperKitHosting
import VivariumSupport

/// A person's actions on the current screen. An element is addressed as it is
/// drawn: the slot path of the module that drew it, then its identifier
/// (`deleteAll`, `tabs/items`, `main.1/ok`).
extension HostRuntime {
  /// The module and local element id an address such as `tabs/items`
  /// names on the current screen.
  package func locate(_ address: String) throws(ViewEventError) -> (node: ModuleNode, id: String) {
    let found = try element(at: address)
    return (found.node, found.id)
  }

  /// Delivers a person's action. The event's element id is an address on the
  /// current screen (`deleteAll`, `tabs/items`); the module that drew the
  /// element receives the event with its own id.
  package func send(_ event: ViewEvent) throws(ViewEventError) {
    guard let address = event.element else { throw ViewEventError("this host cannot deliver the event \(event)") }
    let (node, id, path) = try element(at: address)
    if let problem = ViewElements(node.tree?.qualified(path)).problem(with: event.on(path + id)) {
      throw ViewEventError(problem)
    }
    guard let view = node.module?.view else { throw ViewEventError("\(node.urn) has been detached") }
    touch(node)
    hostCall { view.handle(event.on(id)) }
    drain()
  }

  /// Whether `address` names a secret field on the current screen, whose
  /// text must never be shown or recorded; false for any other address, or
  /// one that names nothing.
  package func isSecretField(_ address: String) -> Bool {
    guard let (node, id, path) = try? element(at: address) else { return false }
    return ViewElements(node.tree?.qualified(path)).secretFields.contains(path + id)
  }

  /// The module an address names, its local element id, and the slot path
  /// before that id as the screen draws it (`tabs/`, `main.1/`; empty for
  /// the top module), which prefixes every identifier that module draws.
  func element(at address: String) throws(ViewEventError) -> (node: ModuleNode, id: String, path: String) {
    guard var node = top else { throw ViewEventError("nothing is shown; open a URN first") }
    let parts = address.split(separator: "/", omittingEmptySubsequences: false)
    if let empty = parts.firstIndex(where: \.isEmpty) {
      throw ViewEventError(
        "part \(empty + 1) of the address '\(Self.clipped(address))' is empty; write the address as shown (in parentheses in the line session, on the bottom line in full screen): slots and the element id joined by single '/', e.g. tabs/deleteAll"
      )
    }
    var path = ""
    for part in parts.dropLast() {
      let (slot, position) = try Self.slotReference(String(part), in: node, address: address)
      let shown = slot.visibleChildren
      let name = slot.spec.name
      if let position {
        guard shown.indices.contains(position) else {
          throw ViewEventError(
            "slot '\(name)' shows \(Plural.count(shown.count, "child", plural: "children")); '\(Self.clipped(String(part)))' is not one of them"
              + (shown.count > 1 ? "; address one as \(name).0/ to \(name).\(shown.count - 1)/" : ""))
        }
        node = shown[position]
        path += ComposedScreen.component(name, position, of: shown.count) + "/"
      } else {
        guard shown.count == 1 else {
          throw ViewEventError(
            shown.isEmpty
              ? "slot '\(name)' is empty"
              : "slot '\(name)' shows \(Plural.count(shown.count, "child", plural: "children")); address one as \(name).0/ to \(name).\(shown.count - 1)/"
          )
        }
        node = shown[0]
        path += name + "/"
      }
    }
    return (node, String(parts[parts.count - 1]), path)
  }

  /// The slot a part of an address names on `node`, `slot` or `slot.N`, and
  /// N if given; nil N when the part is the slot's name alone.
  private static func slotReference(_ part: String, in node: ModuleNode, address: String) throws(ViewEventError) -> (
    SlotState, Int?
  ) {
    if let slot = node.slots.first(where: { $0.spec.name == part }) { return (slot, nil) }
    if let dot = part.lastIndex(of: "."),
      let slot = node.slots.first(where: { $0.spec.name == part[..<dot] })
    {
      let digits = part[part.index(after: dot)...]
      guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let position = Int(digits) else {
        throw ViewEventError(
          "'\(clipped(part))' in '\(clipped(address))' should be \(slot.spec.name).N, N the number of a child shown in slot '\(slot.spec.name)' (from 0)"
        )
      }
      return (slot, position)
    }
    let names = node.slots.map(\.spec.name)
    throw ViewEventError(
      "\(node.urn) has no slot '\(clipped(part))' in '\(clipped(address))'; its slots: \(names.isEmpty ? "none" : names.joined(separator: ", "))"
    )
  }

  /// `text` cut to a length that reads in one line of an error message.
  nonisolated static func clipped(_ text: String) -> String { TextRenderer.truncate(text, to: 80) }
}

extension ViewEvent {
  /// The address of the element the event acts on; nil for a command,
  /// which acts on none (``HostRuntime/run(command:)``), and for an event
  /// this host does not know.
  var element: String? {
    switch self {
    case .tap(let button): button
    case .select(let list, _): list
    case .type(let field, _): field
    case .command: nil
    @unknown default: nil
    }
  }

  /// The same event acting on the element `id`.
  func on(_ id: String) -> ViewEvent {
    switch self {
    case .tap: .tap(button: id)
    case .select(_, let row): .select(list: id, row: row)
    case .type(_, let text): .type(field: id, text: text)
    case .command: self
    @unknown default: self
    }
  }
}
