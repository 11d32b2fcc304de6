import ViperKit

// The Feed module's contract (after "VIPER on iOS in details"): posts with an
// embedded wallet preview, and two presenter configurations over one
// interactor, chosen by the `style` argument.

/// View → Presenter.
protocol FeedViewOutput: AnyObject {
  func viewDidAttach()
  func didTapMask()
}

/// Presenter → View.
protocol FeedViewInput: AnyObject {
  func display(_ screen: FeedScreen)
}

/// Presenter → Interactor.
protocol FeedInteractorInput: AnyObject {
  func loadPosts()
  func announceBalance(_ balance: Int)
}

/// Interactor → Presenter.
protocol FeedInteractorOutput: AnyObject {
  func present(posts: [Post], now: Double)
}

/// Presenter → Router.
protocol FeedRouting: AnyObject {
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
  let posts: [PostUI]
  let maskTitle: String
}

enum FeedContract {
  static let contract = Contract(
    urn: "feed:home",
    summary: "Latest posts with the wallet preview on top; style=compact shows titles only.",
    arguments: [.choice("style", ["extended", "compact"], "Which presenter: extended (author and age) or compact.")],
    slots: [SlotSpec(name: "wallet", accepts: ["wallet:preview"], description: "The wallet balance.")],
    services: [Services.Name.clock, Services.Name.notifications])

  static let maskID = "mask"
  static let postsID = "posts"
}
