import Foundation
import Testing

/// Every relative link in the README and the docs pages leads to a file of
/// the repository, and every `#anchor` to a heading of the page it names, so
/// moving a section cannot leave a link pointing at nothing.
@Suite("Docs links")
struct DocsLinkTests {
  /// A link as written: the page holding it and its target, `path#anchor`.
  struct Link: Sendable, CustomTestStringConvertible {
    let page: String
    let target: String
    var testDescription: String { "\(page) → \(target)" }
  }

  static let links: [Link] = ReadmeExampleTests.pages.flatMap { page in
    outsideCode(page).flatMap { line in
      line.components(separatedBy: "](").dropFirst().compactMap { rest -> Link? in
        guard let end = rest.firstIndex(of: ")") else { return nil }
        let target = String(rest[..<end])
        let external = target.contains("://") || target.hasPrefix("mailto:")
        return external ? nil : Link(page: page, target: target)
      }
    }
  }

  /// The lines of `page` (relative to the repository) outside fenced code.
  static func outsideCode(_ page: String) -> [String] {
    let text = (try? String(contentsOfFile: BuildProducts.repository + "/" + page, encoding: .utf8)) ?? ""
    var inCode = false
    return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
      if line.hasPrefix("```") {
        inCode.toggle()
        return nil
      }
      return inCode ? nil : String(line)
    }
  }

  /// The anchors GitHub gives the headings of `page`: lower case, spaces as
  /// hyphens, punctuation but hyphens and underscores dropped.
  static func anchors(_ page: String) -> Set<String> {
    Set(
      outsideCode(page).filter { $0.hasPrefix("#") }.map { heading in
        let title = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        return String(
          title.compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
          })
      })
  }

  @Test func thePagesLinkToOneAnother() {
    #expect(Self.links.count >= 20, "\(Self.links)")
    for page in ReadmeExampleTests.pages where page != "README.md" {
      #expect(
        Self.links.contains { $0.page == "README.md" && $0.target == page }, "the README does not link to \(page)")
    }
  }

  @Test(arguments: links)
  func linkLeadsSomewhere(link: Link) {
    let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
    let directory = (link.page as NSString).deletingLastPathComponent
    let path =
      parts[0].isEmpty
      ? link.page : ((directory as NSString).appendingPathComponent(String(parts[0])) as NSString).standardizingPath
    #expect(
      FileManager.default.fileExists(atPath: BuildProducts.repository + "/" + path),
      "\(link): no file \(path) in the repository")
    if parts.count == 2, path.hasSuffix(".md") {
      #expect(Self.anchors(path).contains(String(parts[1])), "\(link): \(path) has no heading '#\(parts[1])'")
    }
  }
}
