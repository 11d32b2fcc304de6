/// Something the person did to an element a view drew. The host delivers it
/// to ``ViperView/handle(_:)`` of the module that drew the element.
public enum ViewEvent: Codable, Hashable, Sendable {
  /// The button with this id was tapped.
  case tap(button: String)
  /// The row `row` of the list `list` was selected.
  case select(list: String, row: String)
  /// The field `field` now holds `text`.
  case type(field: String, text: String)
  /// The person ran the command `id` the module's ``Contract/commands``
  /// declare, from the command line or with its key (ViperKit 3.1).
  case command(id: String)
}

/// A stage in a module's life, delivered by the host in this order:
/// attach, appear, (disappear, appear)…, disappear, detach.
public enum LifecycleEvent: String, Codable, Hashable, Sendable, CaseIterable {
  /// The module was built and placed; its view is ready (viewDidLoad).
  case attach
  /// The module became visible.
  case appear
  /// The module stopped being visible.
  case disappear
  /// The module is going away; release anything it started.
  case detach
}
