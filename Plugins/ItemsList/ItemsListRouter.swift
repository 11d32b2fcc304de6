import ViperKit

/// Navigates from the list by URN; never builds another module itself.
final class ItemsListRouter: ViperRouter, ItemsListRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func showDetail(itemID: Int) {
    appRouter.push(URN("items", "detail", itemID))
  }
}
