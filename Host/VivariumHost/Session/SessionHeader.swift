/// The first line of a session screen: the trail of screens on each
/// navigation layer (`a › b ▸ [modal] c`), elided in the middle when it is
/// wider than the line (`a › … 9,996 more … › y › z`).
enum SessionHeader {
  /// The header for `layers` (each layer's URNs, bottom first), `width` columns wide.
  static func line(_ layers: [[String]], width: Int) -> String {
    var items: [Item] = []
    for (index, layer) in layers.enumerated() {
      for (position, urn) in layer.enumerated() {
        let separator = position > 0 ? " › " : index > 0 ? " ▸ " : ""
        items.append(Item(separator: separator, text: (index > 0 && position == 0 ? "[modal] " : "") + urn))
      }
    }
    let title = "── \(trail(items, room: width - 4)) "
    return title + String(repeating: "─", count: max(0, width - title.count))
  }

  /// A screen in the trail and the separator drawn before it.
  struct Item {
    let separator: String
    let text: String
    var width: Int { separator.count + text.count }
  }

  /// `items` joined, in at most `room` columns: the first and the last few
  /// kept, as many as fit, and the middle counted.
  static func trail(_ items: [Item], room: Int) -> String {
    let widths = items.map(\.width)
    guard widths.reduce(0, +) > room, items.count > 1 else {
      return TextRenderer.truncate(items.map { $0.separator + $0.text }.joined(), to: room)
    }
    // Items head..<tail are elided; the last one is always shown.
    var head = 1
    var tail = items.count - 1
    func marker(_ count: Int) -> String { " › … \(grouped(count)) more …" }
    var used = widths[0] + widths[tail]
    var growTail = true
    while head < tail - 1 {
      let next = growTail ? tail - 1 : head
      guard used + widths[next] + marker(tail - head - 1).count <= room else {
        if growTail { growTail = false; continue }
        break
      }
      used += widths[next]
      if growTail { tail -= 1 } else { head += 1 }
      growTail.toggle()
    }
    let shownHead = items[..<head].map { $0.separator + $0.text }.joined()
    let shownTail = items[tail...].map { $0.separator + $0.text }.joined()
    var text = shownHead + marker(tail - head) + shownTail
    if text.count > room {
      text = "… \(grouped(tail)) more …" + shownTail
    }
    return TextRenderer.truncate(text, to: room)
  }

  /// `count` with a comma between thousands: 9,996.
  static func grouped(_ count: Int) -> String {
    let digits = String(count.magnitude)
    var text = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { text += "," }
      text.append(digit)
    }
    return (count < 0 ? "-" : "") + text
  }
}
