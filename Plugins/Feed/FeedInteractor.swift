import ViperKit

/// Loads the posts from the posts source and reloads them on a timer, and
/// tells the person about wallet changes through the notifications service.
final class FeedInteractor: ViperInteractor, FeedInteractorInput {
  weak var presenter: (any FeedInteractorOutput)?
  private let services: Services
  private let work: any ModuleWork
  private let source: DemoPostsSource

  init(services: Services, work: any ModuleWork) {
    self.services = services
    self.work = work
    self.source = DemoPostsSource(clock: services.clock)
  }

  func loadPosts() {
    work.start("load posts") { [weak self, source] in
      let latest = try await source.latest()
      self?.presenter?.present(posts: latest.posts, now: latest.now)
    }
    guard let clock = services.clock else { return }
    work.every(FeedContract.refreshInterval, on: clock, "refresh") { [weak self, source] in
      let latest = try await source.latest()
      self?.presenter?.present(posts: latest.posts, now: latest.now)
    }
  }

  func announceBalance(_ balance: Int) {
    services.notifications?.notice("Wallet balance is now €\(balance).", tone: .positive)
  }
}

/// The demo's posts service: fixtures dated relative to the clock, fetched
/// after a pause that stands in for the network. It waits on the clock
/// service, which is virtual in tests and recorded sessions.
struct DemoPostsSource {
  /// Waits on and dates posts by this clock; without one, answers at once,
  /// at time 0.
  let clock: (any WallClock)?
  /// How long a fetch takes, in seconds.
  var latency = 0.5

  /// The latest posts and the time they were fetched. Throws
  /// `CancellationError` when the work it runs in is cancelled while it waits.
  @MainActor
  func latest() async throws -> (posts: [Post], now: Double) {
    try await clock?.sleep(for: latency)
    let now = clock?.now() ?? 0
    let posts = [
      Post(id: 1, title: "Spring sale starts Monday", author: "Shop team", posted: now - 25 * 60),
      Post(id: 2, title: "How we pack a teapot", author: "Grace", posted: now - 5 * 3600),
      Post(id: 3, title: "New oak trays in stock", author: "Ada", posted: now - 3 * 86400),
    ]
    return (posts, now)
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

  func embedWallet() { appRouter.embed(URN("wallet", "preview"), in: "wallet") }

  func setWalletMasked(_ masked: Bool) { messages.send(SetMasked(masked: masked), toSlot: "wallet") }
}
