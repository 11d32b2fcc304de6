import Testing

@testable import VivariumSupport

/// A hint to run a command names the directories that make it true, quoted
/// for a shell, and a session's own command as the session names it.
@Suite("Hints that name a command")
struct InvocationTests {
  @Test func aCommandNamesTheDirectoriesGivenQuotedForAShell() {
    let hint = Invocation(plugins: ["/opt/my plugins"], data: "/tmp/d$x")
    #expect(hint.command("plugins") == #"'vivarium plugins --plugins "/opt/my plugins" --data "/tmp/d\$x"'"#)
    #expect(Invocation.plain.command("permissions", "grant", "Weather") == "'vivarium permissions grant Weather'")
  }

  @Test func aSessionCommandIsNamedAsWhereItIsRead() {
    let directories = Invocation(plugins: ["p"], data: nil)
    #expect(directories.sessionCommand("routes") == "'vivarium routes --plugins p'")
    #expect(directories.with(.session).sessionCommand("routes") == "'routes'")
    #expect(directories.with(.fullScreen).sessionCommand("routes") == "':routes'")
  }
}
