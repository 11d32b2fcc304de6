import Testing
import ViperKit
import ViperKitHosting
import ViperKitTestKit

@Suite("Resolving URNs and their arguments")
@MainActor
struct ArgumentResolutionTests {
  let catalog = BuildProducts.sampleCatalog

  @Test func placeholderIsTypedByTheContract() throws {
    let resolved = try catalog.resolve("items:detail:2")
    #expect(resolved.arguments.int("itemID") == 2)
    #expect(resolved.route.pluginPath == BuildProducts.itemsDetail)
  }

  @Test func wrongTypeNamesTheArgumentAndContract() throws {
    let error = try catalog.resolveError("items:detail:two")
    #expect(error.kind == .wrongType)
    #expect(error.message.contains("'itemID'") && error.message.contains("items:detail:{itemID}"))
    #expect(error.message.contains("'two'"))
  }

  @Test func unknownArgumentListsWhatTheModuleTakes() throws {
    let error = try catalog.resolveError("items:detail:2", [("color", "red")])
    #expect(error.kind == .unknownArgument)
    #expect(error.message.contains("'color'"))
    #expect(error.message.contains("itemID"), "the arguments it takes")
  }

  @Test func unknownQueryArgumentToo() throws {
    let error = try catalog.resolveError("items:list?sort=name")
    #expect(error.kind == .unknownArgument)
    #expect(error.message.contains("'sort'"))
  }

  @Test func argumentGivenTwiceIsRefused() throws {
    let error = try catalog.resolveError("items:detail:2", [("itemID", "3")])
    #expect(error.kind == .duplicateArgument)
    #expect(error.message.contains("'itemID'"))
  }

  @Test func unknownURNSuggestsPatternsInTheNamespace() throws {
    let error = try catalog.resolveError("items:details:2")
    #expect(error.kind == .notFound)
    #expect(error.message.contains("items:detail:{itemID}"))
    let other = try catalog.resolveError("weather:today")
    #expect(other.kind == .notFound && other.message.contains("'weather'"))
  }

  @Test func malformedURNIsReported() throws {
    let error = try catalog.resolveError("items::")
    #expect(error.kind == .invalidURN)
  }
}

@Suite("Binding arguments against a contract")
@MainActor
struct ArgumentBindingTests {
  @Test func missingRequiredArgumentSaysHowToPassIt() throws {
    let route = try ProbeRoutes.catalog().resolveError("probe:args")
    #expect(route.kind == .missingArgument)
    #expect(route.message.contains("--arg name="), "the argument, and how to pass it")
  }

  @Test func defaultsAreFilledAndTypesParsed() throws {
    let resolved = try ProbeRoutes.catalog().resolve("probe:args?name=ada&ratio=2.5", arguments: [("verbose", "true")])
    #expect(resolved.arguments.string("name") == "ada")
    #expect(resolved.arguments.double("ratio") == 2.5)
    #expect(resolved.arguments.bool("verbose") == true)
    #expect(resolved.arguments.int("count") == 3)
  }

  @Test func theFirstProblemInTheOrderGivenIsReported() throws {
    let catalog = ProbeRoutes.catalog()
    // The query comes before --arg: a bad count there is reported, not the
    // count given twice.
    let wrong = try catalog.resolveError("probe:args?name=x&count=many", [("count", "1")])
    #expect(wrong.kind == .wrongType)
    #expect(wrong.message.contains("'many'"))
    // A good count first, then a bad one: given twice.
    let twice = try catalog.resolveError("probe:args?name=x&count=1", [("count", "many")])
    #expect(twice.kind == .duplicateArgument)
    #expect(twice.message.contains("'count'"))
    // An unknown one before the missing one.
    let unknown = try catalog.resolveError("probe:args?colour=red")
    #expect(unknown.kind == .unknownArgument)
  }

  @Test(arguments: [("verbose", "yes"), ("ratio", "fast"), ("count", "1.5")])
  func badValuesOfEachType(name: String, value: String) throws {
    let error = try ProbeRoutes.catalog().resolveError("probe:args?name=x", [(name, value)])
    #expect(error.kind == .wrongType)
    #expect(error.message.contains("'\(name)'") && error.message.contains("'\(value)'"))
  }
}
