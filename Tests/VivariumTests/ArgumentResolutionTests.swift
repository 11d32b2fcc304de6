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
    #expect(error.message.contains("argument 'itemID' of items:detail:{itemID}"))
    #expect(error.message.contains("must be an int"))
    #expect(error.message.contains("'two'"))
  }

  @Test func unknownArgumentListsWhatTheModuleTakes() throws {
    let error = try catalog.resolveError("items:detail:2", [("color", "red")])
    #expect(error.kind == .unknownArgument)
    #expect(error.message.contains("unknown argument 'color'"))
    #expect(error.message.contains("itemID (int, required)"))
  }

  @Test func unknownQueryArgumentToo() throws {
    let error = try catalog.resolveError("items:list?sort=name")
    #expect(error.kind == .unknownArgument)
    #expect(error.message.contains("it takes no arguments"))
  }

  @Test func argumentGivenTwiceIsRefused() throws {
    let error = try catalog.resolveError("items:detail:2", [("itemID", "3")])
    #expect(error.kind == .duplicateArgument)
    #expect(error.message.contains("in the URN and with --arg"))
  }

  @Test func unknownURNSuggestsPatternsInTheNamespace() throws {
    let error = try catalog.resolveError("items:details:2")
    #expect(error.kind == .notFound)
    #expect(error.message.contains("items:detail:{itemID}"))
    let other = try catalog.resolveError("weather:today")
    #expect(other.message.contains("no loaded plugin uses the namespace 'weather'"))
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
    #expect(route.message.contains("missing required argument 'name' (string)"))
    #expect(route.message.contains("--arg name=VALUE"))
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
    #expect(wrong.message.contains("got 'many' (in the URN query)"))
    // A good count first, then a bad one: given twice.
    let twice = try catalog.resolveError("probe:args?name=x&count=1", [("count", "many")])
    #expect(twice.kind == .duplicateArgument)
    #expect(twice.message.contains("in the URN query and with --arg"))
    // An unknown one before the missing one.
    let unknown = try catalog.resolveError("probe:args?colour=red")
    #expect(unknown.kind == .unknownArgument)
  }

  @Test(arguments: [("verbose", "yes", "true or false"), ("ratio", "fast", "a double"), ("count", "1.5", "an int")])
  func badValuesOfEachType(name: String, value: String, phrase: String) throws {
    let error = try ProbeRoutes.catalog().resolveError("probe:args?name=x", [(name, value)])
    #expect(error.kind == .wrongType)
    #expect(error.message.contains(phrase))
  }
}
