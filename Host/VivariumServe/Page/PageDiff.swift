/// What changed between two pages, as the changes the script applies in
/// order to the page it shows (LiveView's model): an update costs what
/// changed, not the size of the screen.
///
/// Each change names its element by its path, the child indices from the
/// page's root, valid once the changes before it are applied.
enum PageChange: Equatable, Sendable {
  /// The element at `at` becomes `node`, whole.
  case replace(at: [Int], node: PageNode)
  /// The element's text becomes `text`.
  case text(at: [Int], text: String)
  /// The element's attributes: each set to its value, or removed (nil).
  case attributes(at: [Int], [PageNode.Attribute: String?])
  /// The element's children from `index`: `remove` of them go, `insert`
  /// come in their place.
  case splice(at: [Int], index: Int, remove: Int, insert: [PageNode])
}

extension PageChange: Encodable {
  private enum CodingKeys: String, CodingKey { case at, node, text, attributes, splice }

  /// `{"at": path, …}` and one of `node`, `text`, `attributes` (a value of
  /// null removes one) or `splice` (`[index, remove, [nodes]]`).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .replace(let path, let node):
      try container.encode(path, forKey: .at)
      try container.encode(node, forKey: .node)
    case .text(let path, let text):
      try container.encode(path, forKey: .at)
      try container.encode(text, forKey: .text)
    case .attributes(let path, let attributes):
      try container.encode(path, forKey: .at)
      try container.encode(
        Dictionary(uniqueKeysWithValues: attributes.map { ($0.key.rawValue, $0.value) }), forKey: .attributes)
    case .splice(let path, let index, let remove, let insert):
      try container.encode(path, forKey: .at)
      var splice = container.nestedUnkeyedContainer(forKey: .splice)
      try splice.encode(index)
      try splice.encode(remove)
      try splice.encode(insert)
    }
  }
}

enum PageDiff {
  /// The changes that make `old` into `new`.
  static func changes(from old: PageNode, to new: PageNode) -> [PageChange] {
    var changes: [PageChange] = []
    diff(old, new, at: [], into: &changes)
    return changes
  }

  private static func diff(_ old: PageNode, _ new: PageNode, at path: [Int], into changes: inout [PageChange]) {
    guard old != new else { return }
    // Another element, or text where there were children (or the other way):
    // built again whole.
    guard old.tag == new.tag, (old.text == nil) == (new.text == nil) else {
      return changes.append(.replace(at: path, node: new))
    }
    if old.attributes != new.attributes {
      var changed: [PageNode.Attribute: String?] = [:]
      for (name, value) in new.attributes where old.attributes[name] != value { changed[name] = .some(value) }
      for name in old.attributes.keys where new.attributes[name] == nil { changed[name] = .some(nil) }
      changes.append(.attributes(at: path, changed))
    }
    if let text = new.text, text != old.text { changes.append(.text(at: path, text: text)) }
    diffChildren(old.children, new.children, at: path, into: &changes)
  }

  /// Children kept at both ends (by ``PageNode/key``) are compared in
  /// place; those between, as many on both sides and of the same tags,
  /// too (a page of rows turned); else they are replaced by one splice.
  private static func diffChildren(
    _ old: [PageNode], _ new: [PageNode], at path: [Int], into changes: inout [PageChange]
  ) {
    guard old != new else { return }
    var start = 0
    while start < old.count, start < new.count, old[start].key == new[start].key { start += 1 }
    var end = 0
    while end < old.count - start, end < new.count - start,
      old[old.count - 1 - end].key == new[new.count - 1 - end].key
    {
      end += 1
    }
    for index in 0..<start { diff(old[index], new[index], at: path + [index], into: &changes) }
    let oldMiddle = old[start..<(old.count - end)]
    let newMiddle = new[start..<(new.count - end)]
    if oldMiddle.count == newMiddle.count, zip(oldMiddle, newMiddle).allSatisfy({ $0.tag == $1.tag }) {
      for (offset, pair) in zip(oldMiddle, newMiddle).enumerated() {
        diff(pair.0, pair.1, at: path + [start + offset], into: &changes)
      }
    } else {
      changes.append(.splice(at: path, index: start, remove: oldMiddle.count, insert: Array(newMiddle)))
    }
    let shift = new.count - old.count
    for index in (old.count - end)..<old.count {
      diff(old[index], new[index + shift], at: path + [index + shift], into: &changes)
    }
  }
}
