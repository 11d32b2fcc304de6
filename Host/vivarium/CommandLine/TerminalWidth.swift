import Glibc

/// How wide output may be: `COLUMNS`, else the width of the terminal on
/// standard output, else 80; never under 40 nor over 1,000.
enum TerminalWidth {
  /// The width for output written to `fd` in `environment`.
  static func columns(_ environment: [String: String], fd: Int32 = STDOUT_FILENO) -> Int {
    measured(environment, fd: fd) ?? 80
  }

  /// `COLUMNS`, else the width of the terminal on `fd`; nil for a pipe or
  /// a file, whose lines have no width to fit.
  static func measured(_ environment: [String: String], fd: Int32 = STDOUT_FILENO) -> Int? {
    if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 {
      return min(max(columns, 40), 1000)
    }
    var size = winsize()
    if isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return min(max(Int(size.ws_col), 40), 1000)
    }
    return nil
  }
}
