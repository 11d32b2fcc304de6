import ViperKit

/// The elements of a view tree a person can act on, and the slots it draws.
public struct ViewElements: Equatable, Sendable {
  /// Button identifiers, in drawing order.
  public private(set) var buttons: [String] = []
  /// List identifiers with their row identifiers.
  public private(set) var lists: [String: [String]] = [:]
  /// Field identifiers, secret fields included, in drawing order: each
  /// takes ``ViperKit/ViewEvent/type(field:text:)``.
  public private(set) var fields: [String] = []
  /// The identifiers among ``fields`` of secret fields, whose text is never
  /// shown or recorded, in drawing order.
  public private(set) var secretFields: [String] = []
  /// Slot names, in drawing order.
  public private(set) var slots: [String] = []

  /// The elements of `tree` (none for nil).
  public init(_ tree: ViewNode?) {
    if let tree { collect(tree) }
  }

  private mutating func collect(_ node: ViewNode) {
    switch node {
    case .button(let id, _): buttons.append(id)
    case .list(let id, let rows): lists[id] = rows.map(\.id)
    case .field(let id, _, _, _): fields.append(id)
    case .secretField(let id, _, _, _):
      fields.append(id)
      secretFields.append(id)
    case .slot(let name): slots.append(name)
    case .stack(_, let children): children.forEach { collect($0) }
    case .text, .heading, .notice: break
    @unknown default: break
    }
  }

  /// Nil when the tree has the element `event` acts on; otherwise what is
  /// wrong and what the screen offers instead. A command acts on no
  /// element (nil): its module's contract says whether it takes it.
  public func problem(with event: ViewEvent) -> String? {
    switch event {
    case .tap(let button):
      buttons.contains(button) ? nil : "there is no button '\(button)' on this screen; buttons: \(listing(buttons))"
    case .select(let list, let row):
      if let rows = lists[list] {
        rows.contains(row) ? nil : "list '\(list)' has no row '\(row)'; rows: \(listing(rows))"
      } else {
        "there is no list '\(list)' on this screen; lists: \(listing(lists.keys.sorted()))"
      }
    case .type(let field, _):
      fields.contains(field) ? nil : "there is no field '\(field)' on this screen; fields: \(listing(fields))"
    case .command: nil
    @unknown default:
      "this harness cannot deliver the event \(event)"
    }
  }

  private func listing(_ names: [String]) -> String {
    names.isEmpty ? "none" : names.joined(separator: ", ")
  }
}
