import ViperKit

/// Leaves the detail by asking the host to pop it.
final class ItemsDetailRouter: ViperRouter, ItemsDetailRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func close() { appRouter.pop() }
}
