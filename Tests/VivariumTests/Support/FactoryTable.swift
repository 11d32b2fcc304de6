// Compiled into the tests and into each fixture plugin (SwiftPluginBuilder).
import Synchronization
import ViperKit

/// Factories whose contracts are made at run time, for tests and test
/// fixtures. A factory's contract is its type's (a static requirement, and
/// nothing else: ViperKit 3), so each factory made here is a type of its
/// own, `TableFactory<Index>`, whose `Index` type stands for its entry in
/// the table.
enum FactoryTable {
  /// What one factory is: its contract and how it builds.
  struct Entry: Sendable {
    let contract: Contract
    let build: @MainActor @Sendable (ModuleContext) throws -> Module
  }

  private static let entries = Mutex<[Entry]>([])

  /// A factory of a type no other factory has, with `contract`, building with `build`.
  static func factory(
    _ contract: Contract, build: @escaping @MainActor @Sendable (ModuleContext) throws -> Module
  ) -> any ModuleFactory {
    let index = entries.withLock { entries in
      entries.append(Entry(contract: contract, build: build))
      return entries.count - 1
    }
    return factory(at: indexType(index))
  }

  /// The entry at `index`.
  static subscript(index: Int) -> Entry { entries.withLock { $0[index] } }

  private static func factory<Index: FactoryIndex>(at index: Index.Type) -> any ModuleFactory { TableFactory<Index>() }

  /// The type standing for `index`: its binary digits as nested types
  /// (`Odd<Even<One>>` is 5), so that a table of 10,000 takes 14 levels.
  private static func indexType(_ index: Int) -> any FactoryIndex.Type {
    switch index {
    case 0: return Zero.self
    case 1: return One.self
    default:
      let half = indexType(index / 2)
      return index % 2 == 0 ? even(half) : odd(half)
    }
  }

  private static func even<Half: FactoryIndex>(_ half: Half.Type) -> any FactoryIndex.Type { Even<Half>.self }
  private static func odd<Half: FactoryIndex>(_ half: Half.Type) -> any FactoryIndex.Type { Odd<Half>.self }
}

/// The factory at `Index` in ``FactoryTable``.
struct TableFactory<Index: FactoryIndex>: ModuleFactory {
  static var contract: Contract { FactoryTable[Index.value].contract }

  func build(_ context: ModuleContext) throws -> Module { try FactoryTable[Index.value].build(context) }
}

/// A position in ``FactoryTable``, as a type.
protocol FactoryIndex: Sendable {
  static var value: Int { get }
}

enum Zero: FactoryIndex { static var value: Int { 0 } }
enum One: FactoryIndex { static var value: Int { 1 } }
enum Even<Half: FactoryIndex>: FactoryIndex { static var value: Int { Half.value * 2 } }
enum Odd<Half: FactoryIndex>: FactoryIndex { static var value: Int { Half.value * 2 + 1 } }

/// A module made at run time, its contract with it: ``factory`` gives it a
/// factory type of its own (``FactoryTable``).
protocol RuntimeModule: Sendable {
  /// The module's contract.
  var contract: Contract { get }
  /// Builds the module, as ``ModuleFactory/build(_:)``.
  @MainActor func build(_ context: ModuleContext) throws -> Module
}

extension RuntimeModule {
  /// A factory for this module, of a type no other factory has.
  var factory: any ModuleFactory { FactoryTable.factory(contract) { context in try self.build(context) } }
}
