extension Duration {
  /// For log lines: `0.61 ms` below 10 ms, `42 ms` from there.
  package var shownInMilliseconds: String {
    let (seconds, attoseconds) = components
    let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
    return value < 10 ? "\((value * 100).rounded() / 100) ms" : "\(Int(value.rounded())) ms"
  }
}
