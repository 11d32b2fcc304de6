import VivariumSupport

/// The first line of a session screen: the trail of screens on each
/// navigation layer (`a › b ▸ [modal] c`), elided in the middle when it is
/// wider than the line (`a › … 9,996 more … › y › z`). Only the screens that
/// can be shown are looked at, so drawing it does not grow with the stack.
enum SessionHeader {
  /// A screen in the trail and the separator drawn before it.
  struct Item {
    let separator: String
    let text: String
    let width: Int

    init(separator: String, text: String) {
      self.separator = separator
      self.text = text
      width = separator.count + text.count
    }
  }

  /// The header for `layers` (each layer's screens, bottom first, named by
  /// `urn`), `width` columns wide.
  static func line<Screen>(_ layers: [[Screen]], width: Int, urn: (Screen) -> String) -> String {
    let room = width - 4
    func item(_ layer: Int, _ position: Int) -> Item {
      Item(
        separator: position > 0 ? " › " : layer > 0 ? " ▸ " : "",
        text: (layer > 0 && position == 0 ? "[modal] " : "") + urn(layers[layer][position]))
    }
    // From each end, the screens up to the first that would not fit.
    var front: [Item] = []
    var back: [Item] = []
    var frontWidth = 0
    var backWidth = 0
    frontLoop: for layer in layers.indices {
      for position in layers[layer].indices {
        front.append(item(layer, position))
        frontWidth += front[front.count - 1].width
        if frontWidth > room { break frontLoop }
      }
    }
    backLoop: for layer in layers.indices.reversed() {
      for position in layers[layer].indices.reversed() {
        back.append(item(layer, position))
        backWidth += back[back.count - 1].width
        if backWidth > room { break backLoop }
      }
    }
    let total = layers.reduce(0) { $0 + $1.count }
    let title = "── \(trail(front: front, back: back, total: total, room: room)) "
    return title + String(repeating: "─", count: max(0, width - title.count))
  }

  /// The trail in at most `room` columns, given its first screens (`front`,
  /// in order), its last (`back`, last first) and how many there are: whole
  /// if it fits, else the first and last few that fit around a count of the rest.
  static func trail(front: [Item], back: [Item], total: Int, room: Int) -> String {
    func joined<Items: Sequence<Item>>(_ items: Items) -> String { items.map { $0.separator + $0.text }.joined() }
    if total < 3 { return TextRenderer.truncate(joined(total == 2 ? [front[0], back[0]] : front), to: room) }
    if front.count == total, front.reduce(0, { $0 + $1.width }) <= room { return joined(front) }
    func marker(_ count: Int) -> String { " › … \(grouped(count)) more …" }
    // The first `head` and last `tail` screens are shown; the last always.
    var head = 1
    var tail = 1
    var used = front[0].width + back[0].width
    var growTail = true
    while head + tail < total - 1 {
      let candidate =
        growTail ? back.indices.contains(tail) ? back[tail] : nil : front.indices.contains(head) ? front[head] : nil
      guard let candidate, used + candidate.width + marker(total - head - tail - 1).count <= room else {
        if growTail {
          growTail = false
          continue
        }
        break
      }
      used += candidate.width
      if growTail { tail += 1 } else { head += 1 }
      growTail.toggle()
    }
    let shownTail = joined(back[..<tail].reversed())
    var text = joined(front[..<head]) + marker(total - head - tail) + shownTail
    if text.count > room { text = "… \(grouped(total - tail)) more …" + shownTail }
    return TextRenderer.truncate(text, to: room)
  }

  /// `10 s`, `1.5 s`, `250 ms`: a duration for a message.
  static func seconds(_ value: Double) -> String {
    if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
    return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
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
