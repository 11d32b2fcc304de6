import ViperKit

// The Profile module (`profile:{userID}`, from the first article): a person's
// name, handle, city and how long they have been a member. The plugin also
// provides the people service (PeopleProvider) from the same members.

/// View → Presenter.
protocol ProfileViewOutput: ViperPresenter {
  func didTapBack()
}

/// Presenter → View.
protocol ProfileViewInput: ViperView {
  func display(_ screen: ProfileScreen)
}

/// Presenter → Interactor.
protocol ProfileInteractorInput: ViperInteractor {
  func loadUser()
}

/// Interactor → Presenter.
protocol ProfileInteractorOutput: ViperPresenter {
  func present(user: User, now: Double)
  func presentMissing(userID: String)
}

/// Presenter → Router.
protocol ProfileRouting: ViperRouter {
  func close()
}

/// A member, the entity.
struct User: ViperEntity, Equatable {
  let id: String
  let name: String
  let city: String
  let joined: Double
  let bio: String
}

/// What the profile shows.
enum ProfileScreen: ViperViewModel {
  case user(name: String, handle: String, city: String, membership: String, bio: String)
  case missing(String)
}

enum ProfileContract {
  static let contract = Contract(
    urn: "profile:{userID}",
    summary: "A member's profile: name, handle, city, membership and bio.",
    arguments: [.required("userID", .string, "The member's user name, such as ada.")],
    services: [.clock])

  static let backID = "back"
}
