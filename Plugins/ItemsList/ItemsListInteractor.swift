import ItemsCatalog
import ViperKit

/// Asks the items service for the items and carries out the person's
/// changes through it; the only role touching data.
final class ItemsListInteractor: ViperInteractor, ItemsListInteractorInput {
  weak var presenter: (any ItemsListInteractorOutput)?
  private let items: ServiceHandle<ItemsService>
  private let work: any ModuleWork
  private let notifier: (any Notifier)?

  init(items: ServiceHandle<ItemsService>, work: any ModuleWork, notifier: (any Notifier)?) {
    self.items = items
    self.work = work
    self.notifier = notifier
  }

  func fetchItems() {
    presenter?.presentLoading()
    work.start("fetch the items") { [weak self, items] in
      do {
        let all = try await items.list(.all)
        self?.presenter?.present(items: all)
      } catch {
        self?.presenter?.presentUnavailable(reason: ItemsService.reason(of: error))
      }
    }
  }

  func deleteAllItems() {
    work.start("delete the items") { [weak self, items, notifier] in
      do {
        let count = try await items.delete(.all)
        let remaining = try await items.list(.all)
        self?.presenter?.presentDeleted(count: count, remaining: remaining)
      } catch {
        notifier?.alert(title: "Items not deleted", message: ItemsService.reason(of: error))
        self?.fetchItems()
      }
    }
  }
}
