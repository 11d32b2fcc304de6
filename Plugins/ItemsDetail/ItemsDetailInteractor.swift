import ItemsCatalog
import ViperKit

/// Owns the shown item and its state; the only role touching data.
final class ItemsDetailInteractor: ViperInteractor, ItemsDetailInteractorInput {
  weak var presenter: (any ItemsDetailInteractorOutput)?
  private let data: ItemsDataManager
  private let itemID: Int
  private let notifier: (any Notifier)?

  init(itemID: Int, data: ItemsDataManager, notifier: (any Notifier)?) {
    self.itemID = itemID
    self.data = data
    self.notifier = notifier
  }

  func fetchItem() {
    if let item = data.item(id: itemID) {
      presenter?.present(item: item)
    } else {
      presenter?.presentMissing(itemID: itemID, known: data.allItems().map(\.id))
    }
  }

  func toggleEnabled() {
    do {
      if let item = try data.toggle(id: itemID) { presenter?.presentChanged(item: item) }
    } catch {
      notifier?.alert(title: "Item not changed", message: "\(error)")
    }
  }
}
