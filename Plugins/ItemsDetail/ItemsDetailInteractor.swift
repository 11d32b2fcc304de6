import ItemsCatalog
import ViperKit

/// Asks the items service for the shown item and changes it through the
/// service; the only role touching data.
final class ItemsDetailInteractor: ViperInteractor, ItemsDetailInteractorInput {
  weak var presenter: (any ItemsDetailInteractorOutput)?
  private let items: ServiceHandle<ItemsService>
  private let work: any ModuleWork
  private let itemID: Int
  private let notifier: (any Notifier)?
  /// The item as last shown: a toggle flips this.
  private var shown: Item?

  init(itemID: Int, items: ServiceHandle<ItemsService>, work: any ModuleWork, notifier: (any Notifier)?) {
    self.itemID = itemID
    self.items = items
    self.work = work
    self.notifier = notifier
  }

  func fetchItem() {
    presenter?.presentLoading(itemID: itemID)
    work.start("fetch the item") { [weak self, items, itemID] in
      do {
        let item = try await items.item(itemID)
        self?.shown = item
        self?.presenter?.present(item: item)
      } catch {
        let missing = (error as? ItemsFailure)?.kind == .noItem
        self?.presenter?.presentProblem(reason: ItemsService.reason(of: error), missing: missing)
      }
    }
  }

  func toggleEnabled() {
    guard let shown else { return }
    work.start("change the item") { [weak self, items, notifier] in
      do {
        let item = try await items.setEnabled(ItemEnabling(itemID: shown.id, enabled: !shown.enabled))
        self?.shown = item
        self?.presenter?.presentChanged(item: item)
      } catch {
        notifier?.alert(title: "Item not changed", message: ItemsService.reason(of: error))
      }
    }
  }
}
