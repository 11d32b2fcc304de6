import ViperKit
import WalletInterface

/// Draws the balance and forwards the top-up tap.
final class WalletPreviewView: ViperView, WalletPreviewViewInput {
  private let canvas: any Canvas
  let presenter: any WalletPreviewViewOutput

  init(canvas: any Canvas, presenter: any WalletPreviewViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: WalletContract.topUpID) || event == .command(id: WalletContract.topUpID) {
      presenter.didTapTopUp()
    }
  }

  func display(_ screen: WalletPreviewScreen) {
    canvas.draw(
      .horizontal {
        ViewNode.text("Wallet: \(screen.balance)")
        ViewNode.button(id: WalletContract.topUpID, title: "Top up")
        if screen.cancelled { ViewNode.text("(top-up cancelled)") }
      })
  }
}

/// Formats the balance (or hides it) and handles the parent's input and the
/// top-up picker's result, saying so when the picker was closed without one.
final class WalletPreviewPresenter: ViperPresenter {
  weak var view: (any WalletPreviewViewInput)?
  let interactor: any WalletInteractorInput
  let router: any WalletPreviewRouting
  let output: any MessagePort
  private var masked = false
  private var balance = 0
  private var cancelled = false

  init(interactor: any WalletInteractorInput, router: any WalletPreviewRouting, output: any MessagePort) {
    self.interactor = interactor
    self.router = router
    self.output = output
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.loadBalance() }
  }

  /// The balance another preview changed, in this window or another.
  func balanceChangedElsewhere(_ balance: Int) {
    guard balance != self.balance else { return }
    self.balance = balance
    show()
  }

  private func show() {
    view?.display(WalletPreviewScreen(balance: masked ? "€ ••" : "€\(balance)", cancelled: cancelled))
  }
}

extension WalletPreviewPresenter: WalletPreviewViewOutput {
  func didTapTopUp() { router.showTopUp() }
}

extension WalletPreviewPresenter: WalletInteractorOutput {
  func present(balance: Int, changed: Bool) {
    self.balance = balance
    show()
    if changed { output.emit(BalanceChanged(balance: balance)) }
  }
}

extension WalletPreviewPresenter: MessageReceiver {
  func receive(_ message: Message, from origin: MessageOrigin) {
    switch origin {
    case .parent:
      if let input = SetMasked(message) {
        masked = input.masked
        show()
      }
    case .opened:
      cancelled = Dismissed(message) != nil
      if let picked = Picked(message) { interactor.add(picked.amount) } else { show() }
    default:
      break
    }
  }
}

/// Keeps the balance in the storage service.
final class WalletInteractor: ViperInteractor, WalletInteractorInput {
  weak var presenter: (any WalletInteractorOutput)?
  private let services: Services
  private static let balanceKey = "balance"
  private static let startingBalance = 50

  init(services: Services) {
    self.services = services
  }

  /// Has the presenter told of each change of the balance, made anywhere.
  func followBalance(for presenter: WalletPreviewPresenter) {
    services.events?.subscribe(WalletBalance.self, by: presenter) { [weak presenter] change in
      presenter?.balanceChangedElsewhere(change.balance)
    }
  }

  private var balance: Int {
    services.storage?.value(forKey: WalletInteractor.balanceKey).flatMap(Int.init) ?? WalletInteractor.startingBalance
  }

  func loadBalance() { presenter?.present(balance: balance, changed: false) }

  func add(_ amount: Int) {
    let updated = balance + amount
    try? services.storage?.set(String(updated), forKey: WalletInteractor.balanceKey)
    presenter?.present(balance: balance, changed: true)
    try? services.events?.publish(WalletBalance.self, .init(balance: balance))
  }
}

/// Presents the top-up picker; its result comes back to the presenter.
final class WalletPreviewRouter: ViperRouter, WalletPreviewRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func showTopUp() { appRouter.present(URN("wallet", "topup")) }
}
