import ViperKit

/// Draws the amounts to pick from.
final class TopUpView: ViperView, TopUpViewInput {
  private let canvas: any Canvas
  let presenter: any TopUpViewOutput

  init(canvas: any Canvas, presenter: any TopUpViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .select(WalletContract.amountsID, let row): if let amount = Int(row) { presenter.didPick(amount: amount) }
    case .tap(WalletContract.cancelID): presenter.didCancel()
    default: break
    }
  }

  func display(amounts: [Int]) {
    canvas.draw {
      ViewNode.heading("Top up")
      ViewNode.text("Pick an amount to add to your wallet.")
      ViewNode.list(id: WalletContract.amountsID, rows: amounts.map { ListRow(id: String($0), title: "€\($0)") })
      ViewNode.button(id: WalletContract.cancelID, title: "Cancel")
    }
  }
}

/// Returns the picked amount to the opener, then closes. It keeps no data,
/// so the module has no interactor.
final class TopUpPresenter: ViperPresenter, TopUpViewOutput {
  weak var view: (any TopUpViewInput)?
  let router: any TopUpRouting
  let output: any MessagePort

  init(router: any TopUpRouting, output: any MessagePort) {
    self.router = router
    self.output = output
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { view?.display(amounts: WalletContract.amounts) }
  }

  func didPick(amount: Int) {
    output.emit(Picked(amount: amount))
    router.close()
  }

  func didCancel() { router.close() }
}

/// Closes the modal picker.
final class TopUpRouter: ViperRouter, TopUpRouting {
  private let appRouter: any AppRouter

  init(appRouter: any AppRouter) {
    self.appRouter = appRouter
  }

  func close() { appRouter.dismiss() }
}
