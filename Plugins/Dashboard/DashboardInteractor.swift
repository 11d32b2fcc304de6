import PeopleInterface
import SessionInterface
import ViperKit
import WeatherInterface

/// Finds today's weather for the signed-in person through two business
/// services (their city from the people service, its forecast from the
/// weather service), and ends the session through the session service
/// (the Login plugin owns the setting the dashboard's route guard requires).
final class DashboardInteractor: ViperInteractor, DashboardInteractorInput {
  weak var presenter: (any DashboardInteractorOutput)?
  private let services: Services
  private let work: any ModuleWork

  init(services: Services, work: any ModuleWork) {
    self.services = services
    self.work = work
  }

  func fetchForecast(for user: String) {
    let people = services.service(PeopleService.self)
    let weather = services.service(WeatherService.self)
    work.start("fetch today's weather") { [weak self] in
      do {
        let city = try await people.person(user).city
        let forecast = try await weather.forecast(city)
        self?.presenter?.present(today: forecast.days[0], in: city)
      } catch let error as ServiceCallError {
        self?.presenter?.presentNoForecast(reason: error.reason)
      } catch let failure as WeatherFailure {
        self?.presenter?.presentNoForecast(reason: failure.reason)
      } catch let failure as UnknownPerson {
        self?.presenter?.presentNoForecast(reason: "no member '\(failure.id)'")
      }
    }
  }

  func signOut(_ user: String) {
    let session = services.service(SessionService.self)
    work.start("sign out") { [weak self] in
      do {
        _ = try await session.signOut(user)
      } catch {
        self?.presenter?.presentSignOutFailed()
        return
      }
      self?.presenter?.presentSignedOut()
    }
  }
}
