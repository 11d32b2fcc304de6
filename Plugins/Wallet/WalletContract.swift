import ViperKit

// The Wallet plugin's two modules: a balance preview that other modules embed,
// and a top-up picker it presents modally, which returns the picked amount.

/// Preview: View → Presenter.
@MainActor
protocol WalletPreviewViewOutput: AnyObject {
  func didTapTopUp()
}

/// Preview: Presenter → View.
@MainActor
protocol WalletPreviewViewInput: AnyObject {
  func display(_ screen: WalletPreviewScreen)
}

/// Preview: Presenter → Interactor.
@MainActor
protocol WalletInteractorInput: AnyObject {
  func loadBalance()
  func add(_ amount: Int)
}

/// Preview: Interactor → Presenter.
@MainActor
protocol WalletInteractorOutput: AnyObject {
  func present(balance: Int, changed: Bool)
}

/// Preview: Presenter → Router.
@MainActor
protocol WalletPreviewRouting: AnyObject {
  func showTopUp()
}

/// What the preview shows.
struct WalletPreviewScreen: ViperViewModel {
  let balance: String
}

/// Top-up: View → Presenter.
@MainActor
protocol TopUpViewOutput: AnyObject {
  func didPick(amount: Int)
  func didCancel()
}

/// Top-up: Presenter → View.
@MainActor
protocol TopUpViewInput: AnyObject {
  func display(amounts: [Int])
}

/// Top-up: Presenter → Router.
@MainActor
protocol TopUpRouting: AnyObject {
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
    services: [Services.Name.storage])

  static let topUp = Contract(
    urn: "wallet:topup",
    summary: "Pick an amount to add to the wallet; presented modally, it returns the amount to its opener.",
    outputs: [MessageSpec(Picked.self, "The amount the person picked.")])

  static let topUpID = "topUp"
  static let amountsID = "amounts"
  static let cancelID = "cancel"
  static let amounts = [10, 20, 50]
}
