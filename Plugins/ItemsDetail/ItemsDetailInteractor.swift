import ItemsCatalog
import ViperKit

/// Owns the shown item and its state; the only role touching data.
final class ItemsDetailInteractor: ViperInteractor, ItemsDetailInteractorInput {
  weak var presenter: (any ItemsDetailInteractorOutput)?
  private let data: ItemsDataManager
  private let itemID: Int

  init(itemID: Int, data: ItemsDataManager) {
    self.itemID = itemID
    self.data = data
  }

  func fetchItem() {
    if let item = data.item(id: itemID) {
      presenter?.present(item: item)
    } else {
      presenter?.presentMissing(itemID: itemID, known: data.allItems().map(\.id))
    }
  }

  func toggleEnabled() {
    if let item = data.toggle(id: itemID) { presenter?.presentChanged(item: item) }
  }
}
