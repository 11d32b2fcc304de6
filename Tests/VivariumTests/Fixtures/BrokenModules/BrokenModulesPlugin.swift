import ViperKit

/// One module per module check, each failing only that check.
public enum BrokenModulesPlugin: ViperPlugin {
  /// The broken modules, named `broken:CHECK`, and `broken:none`, which breaks nothing.
  public static func factories() -> [any ModuleFactory] {
    let n = ArgumentSpec.required("n", .int, "A number.")
    func module(_ check: String, _ flaw: BrokenFactory.Flaw, _ configure: (inout Contract) -> Void = { _ in })
      -> any ModuleFactory
    {
      var contract = Contract(urn: "broken:\(check)", summary: "Breaks \(check).")
      configure(&contract)
      return BrokenFactory(contract: contract, flaw: flaw).factory
    }
    return [
      module("contract.wellformed", .none) { $0.urn = "broken:contract.wellformed:{id}" },
      module("build.minimal", .throwsAlways),
      module("build.missing-argument", .trapsWhenMissing) { $0.arguments = [n] },
      module("build.wrong-type", .trapsOnWrongType) { $0.arguments = [n] },
      module("build.unknown-argument", .trapsOnUnknown) { $0.arguments = [n] },
      module("presentation.first-cycle", .drawsNothing),
      module("presentation.interaction", .trapsOnLongText),
      module("composition.slots", .forgetsSlots) {
        $0.slots = [SlotSpec(name: "side", accepts: ["broken:composition.slots"], description: "Never drawn.")]
      },
      module("composition.outputs", .undeclaredOutput),
      module("composition.inputs", .noReceiver) { $0.inputs = [MessageSpec(name: "refresh", description: "Reload.")] },
      module("composition.lifecycle", .drawsInBuild),
      module("leaks.teardown", .retainCycle),
      module("leaks.repeated", .hoardsMemory),
      module("concurrency.build", .sharedCounter),
      module("speed.first-render", .slow),
      // Declared with the typo, so only the module that answers it refuses it.
      module("navigation.declared", .unitsTypo) {
        $0.opens = [.push("broken:none:weather:{city}", arguments: ["unit": .string])]
      },
      module("navigation.back", .backOnFirst),
      // Faults seen only when acting on the module, or answering its parent.
      module("composition.slots:tap", .embedsRefused) {
        $0.slots = [SlotSpec(name: "side", accepts: ["broken:composition.slots"], description: "Refuses broken:none.")]
      },
      module("composition.outputs:answer", .answersWrongType) {
        $0.inputs = [MessageSpec(name: "refresh", description: "Reload.")]
        $0.outputs = [MessageSpec(name: "refreshed", fields: ["count": .int], description: "Reloaded.")]
      },
      module("composition.inputs:child", .sendsUndeclaredInput) {
        $0.slots = [SlotSpec(name: "side", accepts: ["broken:none"], description: "A child taking no input.")]
      },
      module("services.declared", .readsUndeclaredClock),
      BrokenFactory(
        contract: Contract(
          urn: "broken:none:weather:{city}", summary: "Breaks nothing; takes units, not unit.",
          arguments: [
            .required("city", .string, "Where."),
            .optional("units", .string, default: .string("metric"), "Which units."),
          ]), flaw: .none
      ).factory,
      module("none", .none),
    ]
  }
}

/// The entry point.
@_cdecl("vivarium_plugin_entry")
public func vivariumPluginEntry() -> UnsafeRawPointer {
  PluginEntry.descriptor(for: BrokenModulesPlugin.self)
}
