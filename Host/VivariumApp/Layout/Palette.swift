import ViperKit
import VivariumTerminal

/// The app's styles. Colours are dropped by the frame writer when colour is
/// off; what must show without colour (focus, the shown tab) also has an
/// attribute or a mark.
enum Palette {
  static let dim = CellStyle(dim: true)
  static let bold = CellStyle(bold: true)
  static let heading = CellStyle(bold: true, underline: true)
  static let bar = CellStyle(reverse: true)
  static let focus = CellStyle(bold: true, reverse: true)
  static let key = CellStyle(foreground: .cyan, bold: true)
  static let tab = CellStyle(foreground: .cyan, bold: true, underline: true)

  static func tone(_ tone: Tone) -> CellStyle {
    switch tone {
    case .normal: .plain
    case .muted: dim
    case .info: CellStyle(foreground: .cyan)
    case .positive: CellStyle(foreground: .green)
    case .warning: CellStyle(foreground: .yellow)
    case .negative: CellStyle(foreground: .red, bold: true)
    @unknown default: .plain
    }
  }
}
