/// One element of the page as the session draws it: the view tree turned
/// into semantic HTML on the host (``PageRenderer``), so that the page's
/// script only builds what it is sent, and sends only what changed
/// (``PageDiff``).
///
/// An element is a tag from ``Tag``, attributes named from ``Attribute``,
/// and either text or children: text from plugins and people only ever
/// becomes an element's text or an attribute's value, never markup, and
/// the script refuses any other tag or attribute name (both lists are
/// these enums, written into it).
struct PageNode: Equatable, Sendable {
  /// The elements a page is made of.
  enum Tag: String, CaseIterable, Sendable {
    case div, section, h2, h3, h4, h5, p, span, button, label, input, ul, li, dialog
  }

  /// The attributes an element may have: none runs script, none loads
  /// anything.
  enum Attribute: String, CaseIterable, Comparable, Sendable {
    case id, `class`, role, type, placeholder, autocomplete, value, tabindex, inert, open
    case ariaLabel = "aria-label"
    case ariaSelected = "aria-selected"
    case ariaModal = "aria-modal"
    case ariaBusy = "aria-busy"
    /// The element's address in the session: what a button's tap, a
    /// field's text and a list's selection name (`tap ADDRESS`, `type
    /// ADDRESS TEXT`, `select ADDRESS ROW`).
    case dataAddress = "data-address"
    /// A row's id in its list.
    case dataRow = "data-row"
    /// How many characters a secret field holds: its text never travels.
    case dataLength = "data-length"

    static func < (lhs: Attribute, rhs: Attribute) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// The element's tag.
  var tag: Tag
  /// Its attributes, each once.
  var attributes: [Attribute: String]
  /// Its text (`textContent`); nil for an element of children.
  var text: String?
  /// Its children, in order; empty for an element of text.
  var children: [PageNode]

  /// An element of `tag` with `attributes`, holding `text` or `children`.
  init(_ tag: Tag, _ attributes: [Attribute: String] = [:], text: String? = nil, _ children: [PageNode] = []) {
    self.tag = tag
    self.attributes = attributes
    self.text = text
    self.children = text == nil ? children : []
  }

  /// What tells this element from its siblings when they change around it:
  /// its tag and the address or row it stands for, so that a row added
  /// above others leaves them as they are.
  var key: String {
    let address =
      attributes[.dataRow] ?? attributes[.dataAddress] ?? attributes[.ariaLabel] ?? ""
    return tag.rawValue + " " + address
  }
}

extension PageNode: Encodable {
  private enum CodingKeys: String, CodingKey {
    /// The tag.
    case t
    /// The attributes, by name.
    case a
    /// The text.
    case x
    /// The children.
    case c
  }

  /// `{"t": tag, "a": {name: value}, "x": text, "c": [children]}`, each
  /// left out when empty: short, as every update carries some.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(tag.rawValue, forKey: .t)
    if !attributes.isEmpty {
      try container.encode(
        Dictionary(uniqueKeysWithValues: attributes.map { ($0.key.rawValue, $0.value) }), forKey: .a)
    }
    try container.encodeIfPresent(text, forKey: .x)
    if !children.isEmpty { try container.encode(children, forKey: .c) }
  }
}
