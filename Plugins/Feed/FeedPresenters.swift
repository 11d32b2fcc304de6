import ViperKit

/// What both feed configurations share: wiring, the wallet child, and the
/// messages from it. Subclasses decide how a post reads.
class FeedPresenter: ViperPresenter, FeedViewOutput, FeedInteractorOutput, MessageReceiver {
  weak var view: (any FeedViewInput)?
  let interactor: any FeedInteractorInput
  let router: any FeedRouting
  private var masked = false
  private var shown: (posts: [Post], now: Double) = ([], 0)

  init(interactor: any FeedInteractorInput, router: any FeedRouting) {
    self.interactor = interactor
    self.router = router
  }

  /// The row for `post`; overridden by each configuration.
  func ui(_ post: Post, now: Double) -> PostUI { PostUI(id: String(post.id), title: post.title, detail: "") }

  /// The screen title; overridden by each configuration.
  var title: String { "Feed" }

  func viewDidAttach() {
    router.embedWallet()
    interactor.loadPosts()
  }

  func didTapMask() {
    masked.toggle()
    router.setWalletMasked(masked)
    present(posts: shown.posts, now: shown.now)
  }

  func present(posts: [Post], now: Double) {
    shown = (posts, now)
    view?.display(
      FeedScreen(
        title: title, posts: posts.map { ui($0, now: now) }, maskTitle: masked ? "Show balance" : "Hide balance"))
  }

  func receive(_ message: Message, from origin: MessageOrigin) {
    if message.name == "balanceChanged", let balance = message.fields["balance"]?.intValue {
      interactor.announceBalance(balance)
    }
  }
}

/// The extended configuration: each post with its author and age.
final class ExtendedFeedPresenter: FeedPresenter {
  override func ui(_ post: Post, now: Double) -> PostUI {
    PostUI(id: String(post.id), title: post.title, detail: "\(post.author), \(Self.age(now - post.posted)) ago")
  }

  static func age(_ seconds: Double) -> String {
    let minutes = Int(seconds / 60)
    if minutes < 60 { return "\(max(minutes, 1)) min" }
    if minutes < 24 * 60 { return "\(minutes / 60) h" }
    return "\(minutes / (24 * 60)) d"
  }
}

/// The compact configuration: titles only.
final class CompactFeedPresenter: FeedPresenter {
  override var title: String { "Feed (compact)" }
}
