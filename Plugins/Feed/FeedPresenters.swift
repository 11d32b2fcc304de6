import ViperKit

/// What both feed configurations share: wiring, the wallet child, and the
/// messages from it. Subclasses decide how a post reads.
class FeedPresenter: ViperPresenter, FeedViewOutput, FeedInteractorOutput, MessageReceiver {
  weak var view: (any FeedViewInput)?
  let interactor: any FeedInteractorInput
  let router: any FeedRouting
  private var masked = false
  /// The posts shown and when they were loaded; nil while loading.
  private var shown: (posts: [Post], now: Double)?

  init(interactor: any FeedInteractorInput, router: any FeedRouting) {
    self.interactor = interactor
    self.router = router
  }

  /// The row for `post`; overridden by each configuration.
  func ui(_ post: Post, now: Double) -> PostUI { PostUI(id: String(post.id), title: post.title, detail: "") }

  /// The screen title; overridden by each configuration.
  var title: String { "Feed" }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach {
      router.embedWallet()
      show()
      interactor.loadPosts()
    }
  }

  func didTapMask() {
    masked.toggle()
    router.setWalletMasked(masked)
    show()
  }

  func present(posts: [Post], now: Double) {
    shown = (posts, now)
    show()
  }

  private func show() {
    view?.display(
      FeedScreen(
        title: title, posts: shown.map { shown in shown.posts.map { ui($0, now: shown.now) } },
        updated: shown.map { "Updated \(FeedPresenter.timeOfDay($0.now))" } ?? "",
        maskTitle: masked ? "Show balance" : "Hide balance"))
  }

  func receive(_ message: Message, from origin: MessageOrigin) {
    if let change = BalanceChanged(message) { interactor.announceBalance(change.balance) }
  }

  /// `time` (seconds since 1970) as `HH:MM:SS` in UTC, whatever the locale.
  static func timeOfDay(_ time: Double) -> String {
    let seconds = Int(time.rounded(.down)) % 86400
    let inDay = seconds < 0 ? seconds + 86400 : seconds
    return [inDay / 3600, inDay / 60 % 60, inDay % 60].map { $0 < 10 ? "0\($0)" : String($0) }.joined(separator: ":")
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
