/// "Did you mean …?" for a misspelt command (of `vivarium` or of a session),
/// option or check pattern: the closest candidate by edit distance, if it is
/// close enough to be a typo.
package enum Suggestion {
  /// The one candidate `word` begins (`rout` for `routes`), else the
  /// candidate closest to `word`, if no more than a third of its letters (at
  /// least 2) must change; ties go to the earlier candidate.
  package static func closest(to word: String, among candidates: [String]) -> String? {
    let completions = candidates.filter { word.count >= 2 && $0.lowercased().hasPrefix(word.lowercased()) }
    if completions.count == 1 { return completions[0] }
    let limit = max(2, word.count / 3)
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(word.lowercased(), candidate.lowercased())
      if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.candidate
  }

  /// `; did you mean 'CANDIDATE'?` for the closest candidate, else `other`.
  package static func didYouMean(_ word: String, among candidates: [String], otherwise other: String = "") -> String {
    closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? other
  }

  /// Levenshtein distance: insertions, deletions and substitutions.
  package static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
      var current = [i + 1]
      for (j, y) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }
}
