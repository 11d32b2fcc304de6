/// Where an arrow key takes the focus: the nearest element in the direction
/// pressed, never one beside it for Up and Down or one above or below for
/// Left and Right. Tab and Shift-Tab go in reading order instead.
struct FocusSearch {
  /// A direction an arrow key points.
  enum Direction: Equatable {
    case up, down, left, right

    /// The way back.
    var opposite: Direction {
      switch self {
      case .up: .down
      case .down: .up
      case .left: .right
      case .right: .left
      }
    }
  }

  /// The last move, so that the opposite key goes back where it came from
  /// (Down from a tab header into its content, then Up, is that header,
  /// not the header nearest the column).
  private var last: (from: FocusKey, to: FocusKey, direction: Direction)?

  /// The element `direction` leads to from `current` among `spots`, nil
  /// when there is none that way. With nothing focused, Down and Right
  /// lead to the first element, Up and Left to the last.
  mutating func target(from current: Hotspot?, among spots: [Hotspot], _ direction: Direction) -> Hotspot? {
    guard let current else { return direction == .down || direction == .right ? spots.first : spots.last }
    if let last, last.to == current.key, last.direction == direction.opposite,
      let back = spots.first(where: { $0.key == last.from })
    {
      self.last = (current.key, back.key, direction)
      return back
    }
    let found: Hotspot?
    switch direction {
    case .up, .down:
      let beyond = spots.filter { direction == .down ? $0.row > current.row : $0.row < current.row }
      let row = direction == .down ? beyond.map(\.row).min() : beyond.map(\.row).max()
      found = beyond.filter { $0.row == row }.min { Self.gap($0, current) < Self.gap($1, current) }
    case .left, .right:
      let beside = spots.filter {
        $0.row == current.row && (direction == .right ? $0.x > current.x : $0.x < current.x)
      }
      found = beside.min { abs($0.x - current.x) < abs($1.x - current.x) }
    }
    if let found { last = (current.key, found.key, direction) }
    return found
  }

  /// Columns between `spot` and `other` side by side: 0 when one is above
  /// the other.
  private static func gap(_ spot: Hotspot, _ other: Hotspot) -> Int {
    if spot.x + spot.width <= other.x { return other.x - (spot.x + spot.width) + 1 }
    if other.x + other.width <= spot.x { return spot.x - (other.x + other.width) + 1 }
    return 0
  }
}
