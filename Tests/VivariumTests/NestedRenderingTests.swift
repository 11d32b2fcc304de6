import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumSupport

/// Draws `tree(urn)` when attached, then asks to embed what `embeds(urn)`
/// names: modules that compose themselves, as plugins do.
struct SelfEmbeddingFactory: RuntimeModule {
  let contract: Contract
  let tree: @MainActor @Sendable (String) -> ViewNode
  let embeds: @MainActor @Sendable (ModuleContext) -> [(urn: String, slot: String)]

  func build(_ context: ModuleContext) throws -> Module {
    let view = SelfEmbeddingView(context: context, tree: tree(context.urn), embeds: embeds(context))
    return Module(view: view, presenter: view.presenter)
  }
}

final class SelfEmbeddingView: ViperView {
  let presenter = SelfEmbeddingPresenter()
  let context: ModuleContext
  let tree: ViewNode
  let embeds: [(urn: String, slot: String)]

  init(context: ModuleContext, tree: ViewNode, embeds: [(urn: String, slot: String)]) {
    self.context = context
    self.tree = tree
    self.embeds = embeds
  }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    context.canvas.draw(tree)
    for embed in embeds { context.router.embed(embed.urn, in: embed.slot) }
  }

  func handle(_ event: ViewEvent) {}
}

final class SelfEmbeddingPresenter: ViperPresenter {}

/// Nested composition drawn as text: a chain `chain:link:{left}` (each link
/// embeds the next in its single slot until 1), and `mix:root`, which holds
/// two stacked children beside a button, and a tab bar of chains.
@MainActor
private func nestedRuntime() throws -> HostRuntime {
  let link = Contract(
    urn: "chain:link:{left}", summary: "A link.", arguments: [.required("left", .int, "Links left.")],
    slots: [SlotSpec(name: "next", accepts: ["chain:link:{left}"], kind: .single, description: "The next link.")])
  let root = Contract(
    urn: "mix:root", summary: "A mix.",
    slots: [
      SlotSpec(name: "side", accepts: ["chain:link:{left}"], kind: .stack, description: "Beside a button."),
      SlotSpec(name: "tabs", accepts: ["chain:link:{left}"], kind: .tabs, description: "Tabs."),
    ])
  let factories: [any ModuleFactory] = [
    SelfEmbeddingFactory(
      contract: link,
      tree: { .stack(.vertical, [.text($0, tone: .info), .button(id: "ok", title: "OK"), .slot("next")]) },
      embeds: { context in
        let left = context.arguments.int("left") ?? 1
        return left > 1 ? [("chain:link:\(left - 1)", "next")] : []
      }
    ).factory,
    SelfEmbeddingFactory(
      contract: root,
      tree: { _ in
        .stack(
          .vertical,
          [
            .heading("Mix"), .stack(.horizontal, [.button(id: "go", title: "Go"), .slot("side")]),
            .notice(.warning, "Tabs below."), .slot("tabs"), .slot("missing"),
          ])
      },
      embeds: { _ in
        [("chain:link:1", "side"), ("chain:link:2", "side"), ("chain:link:3", "tabs"), ("chain:link:1", "tabs")]
      }
    ).factory,
  ]
  let catalog = PluginCatalog(outcomes: [.loaded(LoadedPlugin(path: "nested.so", name: "Nested", factories: factories))]
  )
  return HostRuntime(catalog: catalog, services: try TestServices.make())
}

/// The screen as the host drew it before it passed prefixes down: each level
/// drawn whole, then every line of it prefixed once per level above.
@MainActor
private func redrawnLevelByLevel(_ screen: ComposedScreen, _ renderer: TextRenderer) -> [String] {
  let style = renderer.style
  guard let tree = screen.tree else { return [style.dim("(\(screen.urn) has not drawn)")] }
  return renderer.lines(tree) { name, width in
    guard let slot = screen.slots.first(where: { $0.name == name }) else { return nil }
    guard !slot.children.isEmpty else { return [style.dim("[slot \(name): empty]")] }
    let inner = TextRenderer(width: width - 2, style: style)
    return slot.children.flatMap { child in
      let tabs = slot.selected.map { " (tab \($0 + 1) of \(slot.count))" } ?? ""
      return [style.dim("┌ \(child.path.dropLast()) · \(child.urn)\(tabs)")]
        + redrawnLevelByLevel(child, inner).map { style.dim("│ ") + $0 } + [style.dim("└")]
    }
  }
}

/// `line` without the ANSI escape sequences a style adds.
private func withoutEscapes(_ line: String) -> String {
  var result = ""
  var inEscape = false
  for character in line {
    if inEscape {
      inEscape = character != "m"
    } else if character == "\u{1B}" {
      inEscape = true
    } else {
      result.append(character)
    }
  }
  return result
}

@Suite("Drawing nested modules")
@MainActor
struct NestedRenderingTests {
  /// Where drawing level by level fitted the width, the lines are byte for
  /// byte what it gave, in colour and plain: stacks, tabs, a slot beside a
  /// button, an undeclared slot, nesting five deep.
  @Test(arguments: [80, 60])
  func nestingThatFitsIsDrawnAsBefore(width: Int) async throws {
    let runtime = try nestedRuntime()
    for link in ["mix:root", "chain:link:5"] {
      try await runtime.open(link)
      let screen = try #require(runtime.screen())
      for style in [TextStyle.plain, TextStyle(colour: true)] {
        let renderer = TextRenderer(width: width, style: style)
        let before = redrawnLevelByLevel(screen, renderer)
        try #require(before.allSatisfy { TextRenderer.visibleCount($0) <= width })
        #expect(screen.lines(renderer) == before, "\(link) at \(width)")
      }
    }
    runtime.shutdown()
  }

  /// Frame tops that drawing level by level let run past the width now lose
  /// the beginning of their path; every other line is as it was.
  @Test func frameTopsWiderThanTheScreenAreCut() async throws {
    let runtime = try nestedRuntime()
    try await runtime.open("chain:link:5")
    let screen = try #require(runtime.screen())
    let renderer = TextRenderer(width: 30)
    let (now, before) = (screen.lines(renderer), redrawnLevelByLevel(screen, renderer))
    #expect(now.count == before.count)
    let changed = zip(now, before).filter { $0 != $1 }
    #expect(changed.map(\.1) == ["│ │ ┌ next/next/next · chain:link:2", "│ │ │ ┌ next/next/next/next · chain:link:1"])
    #expect(changed.map(\.0) == ["│ │ ┌ …ext/next · chain:link:2", "│ │ │ ┌ …t/next · chain:link:1"])
  }

  @Test func aThousandNestedModulesStayWithinTheWidth() async throws {
    let runtime = try nestedRuntime()
    try await runtime.open("chain:link:1000")
    let screen = try #require(runtime.screen())
    for style in [TextStyle.plain, TextStyle(colour: true)] {
      let lines = screen.lines(TextRenderer(width: 80, style: style))
      let plain = lines.map(withoutEscapes)
      // Frames, text and notes fit; an element's address longer than the
      // width is drawn by its end, as a frame top is, so that the text
      // grows with the chain, not with its square (the JSON has it whole).
      #expect(plain.filter { !$0.hasSuffix("ok)") }.allSatisfy { $0.count <= 80 })
      #expect(plain.allSatisfy { $0.count <= 2 * 80 })
      #expect(plain.filter { $0.hasSuffix("└") }.count == 999)
      #expect(plain.filter { $0.contains("(nested too deep") }.count == 1)
      // Every module is drawn, down to the last link.
      #expect(plain.contains { $0.hasSuffix("chain:link:1") })
      let buttons = plain.filter { $0.hasSuffix("ok)") }
      #expect(buttons.count == 1000)
      // At the narrowest width, 20 columns: the path's last 19 characters.
      #expect(buttons.last?.hasSuffix("[ OK ] (…ext/next/next/next/ok)") == true, "\(buttons.last ?? "")")
      // An address that fits is drawn whole.
      #expect(buttons[2].hasSuffix("[ OK ] (next/next/ok)"))
    }
    runtime.shutdown()
  }

  /// Indenting stops once two more columns would leave less than the
  /// narrowest width: at 24 columns, two levels indent, the rest do not.
  @Test func indentingStopsAtTheNarrowestWidthAndSaysSo() async throws {
    let runtime = try nestedRuntime()
    try await runtime.open("chain:link:5")
    let lines = try #require(runtime.screen()).lines(TextRenderer(width: 24))
    #expect(lines.allSatisfy { $0.count <= 24 || $0.hasSuffix("ok)") })
    let note = TextRenderer.wrap(ComposedScreen.flatNote, width: 20).map { "│ │ " + $0 }
    let start = try #require(lines.firstIndex(of: note[0]))
    #expect(Array(lines[start..<start + note.count]) == note)
    #expect(lines[start + note.count].hasPrefix("│ │ ┌ …"))
    #expect(lines.filter { $0.hasPrefix("│ │ │") }.isEmpty)
  }

  @Test func frameTopsKeepTheEndOfALongPath() {
    #expect(ComposedScreen.frameTop("tabs/wallet", "wallet:preview", width: 80) == "┌ tabs/wallet · wallet:preview")
    let long = Substring(String(repeating: "next/", count: 50) + "next")
    let top = ComposedScreen.frameTop(long, "chain:link:3", width: 40)
    #expect(top == "┌ …" + long.suffix(22) + " · chain:link:3")
    #expect(top.count == 40)
    #expect(ComposedScreen.frameTop("é/ü", "a:b", width: 12) == "┌ é/ü · a:b")
    #expect(ComposedScreen.frameTop(long, String(repeating: "u", count: 50), width: 20).count == 20)
  }

  /// A role's type name is what `String(describing:)` gives, for the kinds of
  /// classes plugins write.
  @Test func roleTypeNamesReadAsBefore() {
    final class Nested: Sendable {}
    final class Generic<T>: Sendable {}
    let objects: [any AnyObject & Sendable] = [SelfEmbeddingPresenter(), Nested(), Generic<Int>(), Generic<[String]>()]
    for object in objects {
      #expect(RoleReference(.view, object).typeName == String(describing: type(of: object)))
    }
  }
}
