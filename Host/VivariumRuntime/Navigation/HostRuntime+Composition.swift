import ViperKit
import ViperKitHosting

/// Composition: children in slots, and messages between modules.
extension HostRuntime {
  func embed(_ urn: String, in slot: String, of parent: ModuleNode) async {
    do {
      _ = try await insertChild(urn, in: slot, of: parent)
    } catch {
      report(parent, "cannot embed '\(urn)' in slot '\(slot)': \(error.message)", cause: error.kind)
      if let plugin = error.turnedOff { parent.missedPluginsTurnedOff.insert(plugin) }
    }
  }

  /// Builds `urn` as a child in `slot` of `parent`, checked against the slot's
  /// declaration; a single slot's previous child is detached. For a tabs slot
  /// the new child is added but not selected unless it is the first.
  func insertChild(_ urn: String, in slot: String, of parent: ModuleNode) async throws(ResolveError) -> ModuleNode {
    guard let index = parent.slotIndex(slot) else {
      let names = parent.slots.map(\.spec.name)
      throw ResolveError(
        .notFound,
        "\(parent.label) declares no slot '\(slot)' (its slots: \(names.isEmpty ? "none" : names.joined(separator: ", "))); declare it in Contract.slots"
      )
    }
    let spec = parent.slots[index].spec
    let parsed: ParsedURN
    do {
      parsed = try ParsedURN(parsing: urn)
    } catch {
      throw ResolveError(.invalidURN, error.description)
    }
    let accepted = parent.slots[index].accepts.contains { $0.match(parsed) != nil }
    guard accepted else {
      throw ResolveError(
        .notFound,
        "slot '\(slot)' of \(parent.label) accepts \(spec.accepts.joined(separator: ", ")), not '\(urn)'; add its pattern to the slot's accepts"
      )
    }
    let position = spec.kind == .single ? 0 : parent.slots[index].children.count
    let saved = restoring.savedChild(of: parent, inSlot: slot, at: position)
    try checkNesting(urn, in: parent)
    let child = try await build(urn, restoring: saved?.urn == urn ? saved?.state : nil)
    child.parent = parent
    child.lineage = Lineage(urn: child.urn, outer: parent.lineage)
    child.slotName = slot
    if let saved, saved.urn == urn { restoring.restore(child, from: saved) }
    await attach(child)
    let replaced = spec.kind == .single ? parent.slots[index].children : []
    for old in replaced { disappear(old) }
    if spec.kind == .single { parent.slots[index].children = [] }
    parent.slots[index].children.append(child)
    // The new child is the last one held: shown if it is the last one shown.
    if parent.isAppeared, parent.slots[index].visibleChildren.last === child { appear(child) }
    for old in replaced { detach(old) }
    return child
  }

  func removeChildren(in slot: String, of parent: ModuleNode) {
    guard let index = parent.slotIndex(slot) else {
      return report(parent, "cannot empty slot '\(slot)': \(parent.label) declares no such slot")
    }
    let children = parent.slots[index].children
    touch(parent)
    parent.slots[index].children.removeAll()
    parent.slots[index].selected = 0
    for child in children.reversed() { detach(child) }
  }

  func showChild(at position: Int, in slot: String, of parent: ModuleNode) {
    guard let index = parent.slotIndex(slot) else {
      return report(parent, "cannot switch slot '\(slot)': \(parent.label) declares no such slot")
    }
    guard parent.slots[index].spec.kind == .tabs else {
      return report(parent, "cannot switch slot '\(slot)': only a tabs slot shows one child at a time")
    }
    let children = parent.slots[index].children
    guard children.indices.contains(position) else {
      return report(parent, "cannot show child \(position) of slot '\(slot)': it holds \(children.count)")
    }
    select(position, inSlot: index, of: parent)
  }

  /// Makes child `position` of tabs slot `index` the shown one.
  func select(_ position: Int, inSlot index: Int, of parent: ModuleNode) {
    let previous = parent.slots[index].visibleChildren.first
    guard parent.slots[index].selected != position else { return }
    if parent.isAppeared, let previous { disappear(previous) }
    touch(parent)
    parent.slots[index].selected = position
    if parent.isAppeared { appear(parent.slots[index].children[position]) }
  }

  func emit(_ message: Message, from node: ModuleNode) {
    guard let spec = node.contract.outputs.first(where: { $0.name == message.name }) else {
      return report(
        node,
        "emitted '\(message.name)', which its contract does not declare as an output; add it to Contract.outputs")
    }
    if let problem = MessageCheck.problem(message, spec) {
      return report(node, "output \(problem)")
    }
    if let parent = node.parent {
      deliver(message, to: parent, from: .child(slot: node.slotName ?? "", urn: node.urn), sender: node)
    } else if let opener = node.opener, !opener.isDetached {
      node.answeredOpener = true
      deliver(message, to: opener, from: .opened(urn: node.urn), sender: node)
    } else {
      services.logLine(
        .debug, module: node.urn, "output \(message) has no owner to receive it", by: node.pluginName)
    }
  }

  func send(_ message: Message, toSlot slot: String, of parent: ModuleNode) {
    guard let index = parent.slotIndex(slot) else {
      return report(parent, "cannot send '\(message.name)' to slot '\(slot)': \(parent.label) declares no such slot")
    }
    for child in parent.slots[index].children {
      guard let spec = child.contract.inputs.first(where: { $0.name == message.name }) else {
        report(
          parent,
          "sent '\(message.name)' to \(child.label) in slot '\(slot)', which does not declare it as an input; see its inputs with \(services.invocation.sessionCommand("routes"))"
        )
        continue
      }
      if let problem = MessageCheck.problem(message, spec) {
        report(parent, "input for \(child.urn): \(problem)")
        continue
      }
      deliver(message, to: child, from: .parent(urn: parent.urn), sender: parent)
    }
  }

  /// Tells the opener of `modal`, a modal that has just closed without
  /// answering it, that it was dismissed: when the opener is still there and
  /// takes messages (one that does not is not asked to).
  func tellDismissed(_ modal: ModuleNode) {
    guard !modal.answeredOpener, let opener = modal.opener, !opener.isDetached,
      let handler = opener.module?.receiver
    else { return }
    hostCall { handler.receive(Message(Dismissed()), from: .opened(urn: modal.urn)) }
    drain()
  }

  private func deliver(_ message: Message, to receiver: ModuleNode, from origin: MessageOrigin, sender: ModuleNode) {
    guard let handler = receiver.module?.receiver else {
      return report(
        receiver,
        "received '\(message.name)' from \(sender.urn) but takes no messages; make its presenter a MessageReceiver to handle it"
      )
    }
    touch(receiver)
    hostCall { handler.receive(message, from: origin) }
    drain()
  }
}
