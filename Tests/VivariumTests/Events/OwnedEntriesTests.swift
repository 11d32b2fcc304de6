import Testing
import VivariumSupport

/// Entries held for owners that may go away: one per owner and key, in
/// the order added, and those of owners gone swept out.
@Suite struct OwnedEntriesTests {
  final class Owner {}

  @Test func anOwnerAddingAgainReplacesItsEntryAndOrderIsKept() {
    var entries = OwnedEntries<String, Int>()
    let (a, b) = (Owner(), Owner())
    entries.add(1, for: a, key: "t")
    entries.add(2, for: b, key: "t")
    entries.add(3, for: a, key: "u")
    entries.add(4, for: a, key: "t")
    #expect(entries.values(for: "t") == [2, 4])
    #expect(entries.values(for: "u") == [3])
    #expect(entries.contains(key: "u") && !entries.contains(key: "v"))
  }

  @Test func theEntriesOfOwnersGoneAreLeftOutAndSweptOut() {
    var entries = OwnedEntries<String, Int>()
    let kept = Owner()
    entries.add(0, for: kept, key: "t")
    for value in 1...1_000 {
      let passing = Owner()
      entries.add(value, for: passing, key: "t")
    }
    #expect(entries.values(for: "t") == [0])
    // Swept each time the list doubled: what is kept stays within the sweep's floor.
    #expect(entries.kept <= 16)
    entries.add(5, for: kept, key: "t")
    #expect(entries.values(for: "t") == [5])
    // A key whose only owner is gone holds nothing live.
    do {
      let passing = Owner()
      entries.add(6, for: passing, key: "u")
      withExtendedLifetime(passing) { #expect(entries.contains(key: "u")) }
    }
    #expect(!entries.contains(key: "u") && entries.values(for: "u").isEmpty)
  }

  @Test func anEntryAddedWhileTheValuesAreHandedOutWaitsForTheNextTime() {
    var entries = OwnedEntries<String, Int>()
    let (a, b) = (Owner(), Owner())
    entries.add(1, for: a, key: "t")
    var handed: [Int] = []
    for value in entries.values(for: "t") {
      handed.append(value)
      entries.add(2, for: b, key: "t")
    }
    #expect(handed == [1] && entries.values(for: "t") == [1, 2])
  }
}
