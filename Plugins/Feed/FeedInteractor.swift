import ViperKit

/// Owns the posts (fixtures, dated relative to the clock service) and tells
/// the person about wallet changes through the notifications service.
final class FeedInteractor: ViperInteractor, FeedInteractorInput {
  weak var presenter: (any FeedInteractorOutput)?
  private let services: Services

  init(services: Services) {
    self.services = services
  }

  func loadPosts() {
    let now = services.clock?.now() ?? 0
    let posts = [
      Post(id: 1, title: "Spring sale starts Monday", author: "Shop team", posted: now - 25 * 60),
      Post(id: 2, title: "How we pack a teapot", author: "Grace", posted: now - 5 * 3600),
      Post(id: 3, title: "New oak trays in stock", author: "Ada", posted: now - 3 * 86400),
    ]
    presenter?.present(posts: posts, now: now)
  }

  func announceBalance(_ balance: Int) {
    services.notifications?.notice("Wallet balance is now €\(balance).", tone: .positive)
  }
}

/// Embeds the wallet preview and passes the mask input down to it.
final class FeedRouter: ViperRouter, FeedRouting {
  private let appRouter: any AppRouter
  private let messages: any MessagePort

  init(appRouter: any AppRouter, messages: any MessagePort) {
    self.appRouter = appRouter
    self.messages = messages
  }

  func embedWallet() { appRouter.embed("wallet:preview", in: "wallet") }

  func setWalletMasked(_ masked: Bool) {
    messages.send(Message("setMasked", ["masked": .bool(masked)]), toSlot: "wallet")
  }
}
