import ViperKit

// The Profile module (`profile:{userID}`, from the first article): a person's
// name, handle and how long they have been a member.

/// View → Presenter.
@MainActor
protocol ProfileViewOutput: AnyObject {
  func didTapBack()
}

/// Presenter → View.
@MainActor
protocol ProfileViewInput: AnyObject {
  func display(_ screen: ProfileScreen)
}

/// Presenter → Interactor.
@MainActor
protocol ProfileInteractorInput: AnyObject {
  func loadUser()
}

/// Interactor → Presenter.
@MainActor
protocol ProfileInteractorOutput: AnyObject {
  func present(user: User, now: Double)
  func presentMissing(userID: String)
}

/// Presenter → Router.
@MainActor
protocol ProfileRouting: AnyObject {
  func close()
}

/// A member, the entity.
struct User: ViperEntity, Equatable {
  let id: String
  let name: String
  let joined: Double
  let bio: String
}

/// What the profile shows.
enum ProfileScreen: ViperViewModel {
  case user(name: String, handle: String, membership: String, bio: String)
  case missing(String)
}

enum ProfileContract {
  static let contract = Contract(
    urn: "profile:{userID}",
    summary: "A member's profile: name, handle, membership and bio.",
    arguments: [.required("userID", .string, "The member's user name, such as ada.")],
    services: [Services.Name.clock])

  static let backID = "back"
}
