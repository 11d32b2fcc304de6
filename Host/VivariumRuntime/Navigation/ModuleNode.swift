import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// A live module in the host: built from a resolved URN, placed in a
/// navigation stack or in a parent's slot, and driven through its lifecycle.
@MainActor
package final class ModuleNode {
  /// Unique within one runtime, in build order.
  package let id: Int
  /// What it was built from.
  package let resolved: ResolvedModule
  /// The embedding parent, for a child module.
  package internal(set) weak var parent: ModuleNode?
  /// The module that pushed or presented it, which receives its outputs.
  package internal(set) weak var opener: ModuleNode?
  /// Whether it has sent its opener an output: a modal that has closes
  /// without the opener being sent ``Dismissed``.
  var answeredOpener = false
  /// The slot it sits in, for a child module.
  package internal(set) var slotName: String?
  /// The URNs of the modules it sits in, and its own: what a child is
  /// checked against (``HostRuntime/checkNesting(_:in:)``).
  var lineage: Lineage
  /// The slots its contract declares, with their children.
  package internal(set) var slots: [SlotState]
  /// The module it was rebuilt from, in its place, when its plugin was
  /// restarted or reloaded: a view keeps that module's focus and scroll.
  package internal(set) var rebuiltFrom: ObjectIdentifier?
  /// The plugins turned off (their declared names) whose modules it could
  /// not embed: it is rebuilt, to embed them, once one is turned on.
  var missedPluginsTurnedOff: Set<String> = []
  /// Lifecycle events sent to it so far, in order.
  package internal(set) var lifecycle: [LifecycleEvent] = []
  /// Its weak role references, which outlive the module for leak checks.
  package let roles: [RoleReference]

  var module: Module?
  let canvas: NodeCanvas
  /// Its work, cancelled when it detaches.
  var work: WorkScope?
  /// Whether the host has said it drew nothing after its work ended.
  var reportedBlank = false
  /// The version of the host's catalog it was resolved in
  /// (``SharedHost/catalogVersion``): a reload rebuilds the modules of its
  /// plugin resolved in an earlier one.
  var catalogVersion = 0
  /// The URN and separate arguments it was built from, to build it again.
  var openedWith: (urn: String, arguments: [(name: String, value: String)]) = ("", [])
  /// Why it could not take back its restoration state when built, until
  /// the restoring reports it.
  var restoreFailure: String?
  /// Why its restoration state could not be read, last time, so that a
  /// reason is reported once.
  var stateFailure: String?
  /// Kept alive by the node, so the module's context stays valid.
  var adapters: [AnyObject] = []

  init(id: Int, resolved: ResolvedModule, module: Module, canvas: NodeCanvas) {
    self.id = id
    self.canvas = canvas
    self.resolved = resolved
    self.module = module
    self.roles = module.roles
    slots = resolved.route.contract.slots.map { SlotState(spec: $0) }
    lineage = Lineage(urn: resolved.urn, outer: nil)
  }

  /// The URN it was opened with.
  package var urn: String { resolved.urn }
  /// Its contract.
  package var contract: Contract { resolved.route.contract }
  /// The plugin file it comes from.
  package var pluginPath: String { resolved.route.pluginPath }
  /// The name of the plugin it comes from: lines logged about what it
  /// asked for count against that plugin's rate.
  var pluginName: String { resolved.route.identity.name }
  /// The last tree its view drew.
  package var tree: ViewNode? { canvas.tree }
  /// Whether it has been detached and released.
  package var isDetached: Bool { module == nil }
  /// Whether it received appear more recently than disappear.
  package var isAppeared: Bool { lifecycle.last == .appear }

  /// The outermost ancestor: the module on a navigation stack.
  var root: ModuleNode { parent?.root ?? self }

  /// Index of the slot named `name`.
  func slotIndex(_ name: String) -> Int? { slots.firstIndex { $0.spec.name == name } }

  /// Every child, in slot order.
  package var allChildren: [ModuleNode] { slots.flatMap(\.children) }

  /// Children that are shown when this module is: all of a stack or single
  /// slot, the selected one of a tabs slot.
  var visibleChildren: [ModuleNode] { slots.flatMap(\.visibleChildren) }

  /// `urn (plugin file)`, for messages.
  var label: String { "\(urn) (\(PathName.lastComponent(pluginPath)))" }
}

/// A module's URN and those of the modules it sits in, innermost first:
/// shared by its children, so that finding a URN among a module's
/// ancestors follows plain references.
final class Lineage: Sendable {
  let urn: String
  let outer: Lineage?
  /// How many modules it sits in: 0 for a screen.
  let depth: Int

  init(urn: String, outer: Lineage?) {
    self.urn = urn
    self.outer = outer
    depth = outer.map { $0.depth + 1 } ?? 0
  }

  /// This lineage and the outer ones, innermost first, up to the first of
  /// `urn` (included); nil when `urn` is not among them.
  func chain(to urn: String) -> [String]? {
    var current: Lineage? = self
    while let lineage = current, lineage.urn != urn { current = lineage.outer }
    guard let found = current else { return nil }
    return sequence(first: self) { $0 === found ? nil : $0.outer }.map(\.urn)
  }
}

/// A declared slot and the child modules in it.
@MainActor
package struct SlotState {
  /// The slot's declaration.
  package let spec: SlotSpec
  /// Children in embedding order.
  package internal(set) var children: [ModuleNode] = []
  /// The child shown, for a tabs slot.
  package internal(set) var selected = 0
  /// The patterns of `spec.accepts` that parse, parsed once for every
  /// child embedded (a fan of a thousand embeds a thousand times).
  let accepts: [URNPattern]

  init(spec: SlotSpec) {
    self.spec = spec
    accepts = spec.accepts.compactMap { try? URNPattern(parsing: $0) }
  }

  /// The children drawn: all, or for tabs the selected one.
  package var visibleChildren: [ModuleNode] {
    guard spec.kind == .tabs else { return children }
    return children.indices.contains(selected) ? [children[selected]] : []
  }
}

/// Stores the last tree a module drew; a draw from the module's work tells
/// the session that the screen changed (``HostRuntime/moduleDrew(_:)``).
@MainActor
final class NodeCanvas: Canvas {
  var tree: ViewNode?
  private weak var runtime: HostRuntime?
  private weak var node: ModuleNode?

  init(runtime: HostRuntime) {
    self.runtime = runtime
  }

  func bind(_ node: ModuleNode) { self.node = node }

  func draw(_ tree: ViewNode) {
    self.tree = tree
    runtime?.moduleDrew(node)
  }
}

/// One module's router and message port: every request is queued on the
/// runtime with the node that made it, and carried out after the module's
/// current call returns.
@MainActor
final class NodeLink: RemoteModuleLink {
  private weak var runtime: HostRuntime?
  private weak var node: ModuleNode?

  init(runtime: HostRuntime) {
    self.runtime = runtime
  }

  func bind(_ node: ModuleNode) {
    self.node = node
    label = node.label
    if let failure = pendingFailure {
      pendingFailure = nil
      moduleFailed(failure)
    }
  }

  /// The module's `urn (plugin file)`, for reports after it is gone.
  private var label = ""
  /// A failure reported before the module had its node (while building).
  private var pendingFailure: String?

  private func enqueue(_ make: (ModuleNode) -> HostRuntime.Request) {
    guard let runtime, let node, !node.isDetached else { return }
    runtime.touch(node)
    runtime.enqueue(make(node))
    runtime.requestQueued()
  }

  func request(_ request: HostRequest) { enqueue { .module($0, request) } }

  /// The module's plugin process ended (``PluginFailure/summary``): its
  /// owner is told, and the problem reported.
  func moduleFailed(_ failure: String) {
    guard node != nil else {
      pendingFailure = failure
      return
    }
    enqueue { .failed($0, failure) }
  }

  /// The module's restoration state changed (a plugin process sent it).
  func stateChanged() {
    guard let runtime, let node, !node.isDetached else { return }
    runtime.touch(node)
  }

  /// The person asked to restart the module's plugin.
  func restartPlugin() { enqueue { .restartPlugin($0) } }

  /// The person asked to turn on the plugin `name`, turned off.
  func turnOn(_ name: String) { enqueue { .turnOn($0, plugin: name) } }

  /// Role objects of the module outlived its detach.
  func reportLeak(_ roles: [String]) {
    runtime?.reportLeak(label, roles: roles)
  }
}
