/// One element of a rendered screen. A view draws a tree of these values; the
/// host lays them out in the terminal or prints them as JSON.
///
/// Element identifiers (`id` of lists, buttons, fields and secret fields) must be unique
/// within one module's tree: events come back to the view carrying them.
public indirect enum ViewNode: Hashable, Sendable {
  /// A line of body text.
  case text(String, tone: Tone = .normal)
  /// The title of a screen or a section.
  case heading(String)
  /// A list whose rows the person can select.
  case list(id: String, rows: [ListRow])
  /// A button the person can tap.
  case button(id: String, title: String)
  /// A single-line text field the person can type into.
  case field(id: String, label: String, value: String, placeholder: String = "")
  /// A single-line text field for a secret, such as a password, that the
  /// host never shows or echoes.
  ///
  /// The view never puts the secret in the tree: it gives only `length`, how
  /// many characters have been typed, and the host draws that many dots (the
  /// `placeholder` while `length` is 0). What the person types comes back in
  /// full as ``ViewEvent/type(field:text:)`` with this `id`, as for a
  /// ``field(id:label:value:placeholder:)``; keep the text in the presenter or
  /// interactor and draw its `count` here.
  ///
  /// New in ViperKit 2.1.
  case secretField(id: String, label: String, length: Int, placeholder: String = "")
  /// Children laid out one below the other or side by side.
  case stack(Axis, [ViewNode])
  /// Where the child module embedded in the named slot is drawn.
  case slot(String)
  /// A message for the person: information, success, warning or error.
  case notice(Tone, String)
}

/// How a ``ViewNode/stack(_:_:)`` lays out its children.
public enum Axis: String, Codable, Hashable, Sendable {
  /// One below the other.
  case vertical
  /// Side by side.
  case horizontal
}

/// The meaning of a piece of text; the host maps it to a colour or a marker.
public enum Tone: String, Codable, Hashable, Sendable {
  /// Plain text.
  case normal
  /// Less important text.
  case muted
  /// Neutral information.
  case info
  /// Something good or enabled.
  case positive
  /// Something that needs attention.
  case warning
  /// Something wrong or disabled.
  case negative
}

/// One selectable row of a ``ViewNode/list(id:rows:)``.
public struct ListRow: Codable, Hashable, Sendable {
  /// Identifies the row in ``ViewEvent/select(list:row:)``.
  public var id: String
  /// The row's main text.
  public var title: String
  /// Secondary text, such as a formatted date.
  public var detail: String
  /// A state marker such as enabled/disabled, drawn in colour or as a label.
  public var marker: Marker?

  /// Creates a row.
  public init(id: String, title: String, detail: String = "", marker: Marker? = nil) {
    self.id = id
    self.title = title
    self.detail = detail
    self.marker = marker
  }
}

/// A coloured state marker with a label for terminals without colour.
public struct Marker: Codable, Hashable, Sendable {
  /// The colour meaning.
  public var tone: Tone
  /// The words shown when colour is off, for example `enabled`.
  public var label: String

  /// Creates a marker.
  public init(_ tone: Tone, _ label: String) {
    self.tone = tone
    self.label = label
  }
}
