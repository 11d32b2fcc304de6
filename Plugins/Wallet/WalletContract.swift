import ViperKit

// The Wallet plugin's two modules: a balance preview that other modules embed,
// and a top-up picker it presents modally, which returns the picked amount.

/// Preview: View → Presenter.
protocol WalletPreviewViewOutput: ViperPresenter {
  func didTapTopUp()
}

/// Preview: Presenter → View.
protocol WalletPreviewViewInput: ViperView {
  func display(_ screen: WalletPreviewScreen)
}

/// Preview: Presenter → Interactor.
protocol WalletInteractorInput: ViperInteractor {
  func loadBalance()
  func add(_ amount: Int)
}

/// Preview: Interactor → Presenter.
protocol WalletInteractorOutput: ViperPresenter {
  func present(balance: Int, changed: Bool)
}

/// Preview: Presenter → Router.
protocol WalletPreviewRouting: ViperRouter {
  func showTopUp()
}

/// What the preview shows.
struct WalletPreviewScreen: ViperViewModel {
  let balance: String
  /// Said after the top-up picker was closed without an amount.
  let cancelled: Bool
}

/// Top-up: View → Presenter.
protocol TopUpViewOutput: ViperPresenter {
  func didPick(amount: Int)
  func didCancel()
}

/// Top-up: Presenter → View.
protocol TopUpViewInput: ViperView {
  func display(amounts: [Int])
}

/// Top-up: Presenter → Router.
protocol TopUpRouting: ViperRouter {
  func close()
}

/// Preview input `setMasked`: hide or show the amount.
struct SetMasked: ModuleMessage {
  var masked: Bool
}

/// Preview output `balanceChanged`: the balance after a top-up.
struct BalanceChanged: ModuleMessage {
  var balance: Int
}

/// Top-up output `picked`: the amount the person picked.
struct Picked: ModuleMessage {
  var amount: Int
}

enum WalletContract {
  static let preview = Contract(
    urn: "wallet:preview",
    summary: "The wallet balance, with a button to top it up; meant to be embedded in other screens.",
    inputs: [MessageSpec(SetMasked.self, "Hide or show the amount.")],
    outputs: [MessageSpec(BalanceChanged.self, "The balance after a top-up.")],
    services: [.storage],
    opens: [.present("wallet:topup", expects: [MessageSpec(Picked.self, "The amount the person picked.")])],
    // Wherever the preview is shown, `t` (or `:topUp`) tops up, as its button does.
    commands: [CommandSpec(topUpID, title: "Top up the wallet", key: CommandKey("t"))])

  static let topUp = Contract(
    urn: "wallet:topup",
    summary: "Pick an amount to add to the wallet; presented modally, it returns the amount to its opener.",
    outputs: [MessageSpec(Picked.self, "The amount the person picked.")])

  static let topUpID = "topUp"
  static let amountsID = "amounts"
  static let cancelID = "cancel"
  static let amounts = [10, 20, 50]
}
