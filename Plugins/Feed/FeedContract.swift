import ViperKit

// The Feed module's contract (after "VIPER on iOS in details"): posts with an
// embedded wallet preview, and two presenter configurations over one
// interactor, chosen by the `style` argument.

/// View → Presenter.
protocol FeedViewOutput: ViperPresenter {
  func didTapMask()
}

/// Presenter → View.
protocol FeedViewInput: ViperView {
  func display(_ screen: FeedScreen)
}

/// Presenter → Interactor.
protocol FeedInteractorInput: ViperInteractor {
  /// Loads the posts, then reloads them every 30 seconds.
  func loadPosts()
  func announceBalance(_ balance: Int)
}

/// Interactor → Presenter.
protocol FeedInteractorOutput: ViperPresenter {
  /// The posts as loaded at `now`.
  func present(posts: [Post], now: Double)
}

/// Presenter → Router.
protocol FeedRouting: ViperRouter {
  func embedWallet()
  func setWalletMasked(_ masked: Bool)
}

/// A post, the entity.
struct Post: ViperEntity, Equatable {
  let id: Int
  let title: String
  let author: String
  let posted: Double
}

/// A post as the view shows it.
struct PostUI: ViperViewModel {
  let id: String
  let title: String
  let detail: String
}

/// What the feed shows.
struct FeedScreen: ViperViewModel {
  let title: String
  /// Nil until the posts have loaded.
  let posts: [PostUI]?
  /// When the posts shown were loaded, such as `Updated 12:00:30`.
  let updated: String
  let maskTitle: String
}

/// The wallet preview's input `setMasked`, sent to the `wallet` slot.
struct SetMasked: ModuleMessage {
  var masked: Bool
}

/// The wallet preview's output `balanceChanged`.
struct BalanceChanged: ModuleMessage {
  var balance: Int
}

enum FeedContract {
  static let contract = Contract(
    urn: "feed:home",
    summary: "Latest posts with the wallet preview on top; style=compact shows titles only.",
    arguments: [.choice("style", ["extended", "compact"], "Which presenter: extended (author and age) or compact.")],
    slots: [SlotSpec(name: "wallet", accepts: ["wallet:preview"], description: "The wallet balance.")],
    services: [.clock, .notifications])

  /// Seconds between reloads of the posts.
  static let refreshInterval = 30.0
  static let maskID = "mask"
  static let postsID = "posts"
}
