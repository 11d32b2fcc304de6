import ViperKit

// The Wallet plugin's two modules: a balance preview that other modules embed,
// and a top-up picker it presents modally, which returns the picked amount.

/// Preview: View → Presenter.
protocol WalletPreviewViewOutput: AnyObject {
  func viewDidAttach()
  func didTapTopUp()
}

/// Preview: Presenter → View.
protocol WalletPreviewViewInput: AnyObject {
  func display(_ screen: WalletPreviewScreen)
}

/// Preview: Presenter → Interactor.
protocol WalletInteractorInput: AnyObject {
  func loadBalance()
  func add(_ amount: Int)
}

/// Preview: Interactor → Presenter.
protocol WalletInteractorOutput: AnyObject {
  func present(balance: Int, changed: Bool)
}

/// Preview: Presenter → Router.
protocol WalletPreviewRouting: AnyObject {
  func showTopUp()
}

/// What the preview shows.
struct WalletPreviewScreen: ViperViewModel {
  let balance: String
}

/// Top-up: View → Presenter.
protocol TopUpViewOutput: AnyObject {
  func viewDidAttach()
  func didPick(amount: Int)
  func didCancel()
}

/// Top-up: Presenter → View.
protocol TopUpViewInput: AnyObject {
  func display(amounts: [Int])
}

/// Top-up: Presenter → Router.
protocol TopUpRouting: AnyObject {
  func close()
}

enum WalletContract {
  static let preview = Contract(
    urn: "wallet:preview",
    summary: "The wallet balance, with a button to top it up; meant to be embedded in other screens.",
    inputs: [
      MessageSpec(name: "setMasked", fields: ["masked": .bool], description: "Hide or show the amount.")
    ],
    outputs: [
      MessageSpec(name: "balanceChanged", fields: ["balance": .int], description: "The balance after a top-up.")
    ],
    services: [Services.Name.storage])

  static let topUp = Contract(
    urn: "wallet:topup",
    summary: "Pick an amount to add to the wallet; presented modally, it returns the amount to its opener.",
    outputs: [MessageSpec(name: "picked", fields: ["amount": .int], description: "The amount the person picked.")])

  static let topUpID = "topUp"
  static let amountsID = "amounts"
  static let cancelID = "cancel"
  static let amounts = [10, 20, 50]
}
