import ItemsCatalog
import ViperKit

/// Owns the items and the business rules; the only role touching data.
final class ItemsListInteractor: ViperInteractor, ItemsListInteractorInput {
  weak var presenter: (any ItemsListInteractorOutput)?
  private let data: ItemsDataManager
  private let notifier: (any Notifier)?

  init(data: ItemsDataManager, notifier: (any Notifier)?) {
    self.data = data
    self.notifier = notifier
  }

  func fetchItems() {
    presenter?.present(items: data.allItems())
  }

  func deleteAllItems() {
    do {
      let count = try data.deleteAll()
      presenter?.presentDeleted(count: count, remaining: data.allItems())
    } catch {
      notifier?.alert(title: "Items not deleted", message: "\(error)")
      presenter?.present(items: data.allItems())
    }
  }
}
