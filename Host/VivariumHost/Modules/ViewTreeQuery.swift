import ViperKit

/// A view event the current screen cannot take, with what it does offer.
public struct ViewEventError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong and what the person can do instead.
  public let message: String
  init(_ message: String) { self.message = message }
  /// The message.
  public var description: String { message }
}

/// Finds the interactive elements of a view tree.
struct ViewTreeQuery {
  var buttons: [String] = []
  var lists: [String: [String]] = [:]
  var fields: [String] = []

  init(_ tree: ViewNode?) {
    if let tree { collect(tree) }
  }

  private mutating func collect(_ node: ViewNode) {
    switch node {
    case .button(let id, _): buttons.append(id)
    case .list(let id, let rows): lists[id] = rows.map(\.id)
    case .field(let id, _, _, _): fields.append(id)
    case .stack(_, let children): children.forEach { collect($0) }
    case .text, .heading, .slot, .notice: break
    @unknown default: break
    }
  }

  /// Throws unless the tree has the element `event` acts on.
  func check(_ event: ViewEvent) throws(ViewEventError) {
    switch event {
    case .tap(let button):
      guard buttons.contains(button) else {
        throw ViewEventError("there is no button '\(button)' on this screen; buttons: \(listing(buttons))")
      }
    case .select(let list, let row):
      guard let rows = lists[list] else {
        throw ViewEventError("there is no list '\(list)' on this screen; lists: \(listing(lists.keys.sorted()))")
      }
      guard rows.contains(row) else {
        throw ViewEventError("list '\(list)' has no row '\(row)'; rows: \(listing(rows))")
      }
    case .type(let field, _):
      guard fields.contains(field) else {
        throw ViewEventError("there is no field '\(field)' on this screen; fields: \(listing(fields))")
      }
    @unknown default:
      throw ViewEventError("this host cannot deliver the event \(event)")
    }
  }

  private func listing(_ names: [String]) -> String {
    names.isEmpty ? "none" : names.joined(separator: ", ")
  }
}
