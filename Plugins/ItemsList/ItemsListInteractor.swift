import ItemsCatalog
import ViperKit

/// Owns the items and the business rules; the only role touching data.
final class ItemsListInteractor: ViperInteractor, ItemsListInteractorInput {
  weak var presenter: (any ItemsListInteractorOutput)?
  private let data: ItemsDataManager

  init(data: ItemsDataManager) {
    self.data = data
  }

  func fetchItems() {
    presenter?.present(items: data.allItems())
  }

  func setEnabled(_ enabled: Bool, itemID: Int) {
    if data.item(id: itemID)?.enabled != enabled { _ = data.toggle(id: itemID) }
    presenter?.present(items: data.allItems())
  }

  func deleteAllItems() {
    let count = data.deleteAll()
    presenter?.presentDeleted(count: count, remaining: data.allItems())
  }
}
