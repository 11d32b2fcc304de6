import ViperKit
import WeatherInterface

// The Weather plugin: provides the weather service (WeatherProvider) and a
// forecast screen, `weather:{city}`, drawn from that service like any
// other consumer's.

/// What the forecast screen shows.
enum ForecastScreen: ViperViewModel {
  case loading(city: String)
  case days(city: String, lines: [String])
  case failed(city: String, reason: String)
}

enum ForecastContract {
  static let contract = Contract(
    urn: "weather:{city}",
    summary: "The forecast for a city, day by day, from the weather service.",
    arguments: [.required("city", .string, "The city: London, New York, Paris or Tokyo.")],
    services: [.settings],
    requires: [.required(WeatherService.self, "1.0"..<"2")],
    settings: [
      SettingDeclaration(
        unitsKey, .choice(default: TemperatureUnit.celsius.rawValue, among: TemperatureUnit.allCases.map(\.rawValue)),
        description: "How the forecast and the dashboard show temperatures.", readableByOthers: true)
    ])

  static let backID = "back"
  /// The setting choosing the forecast's unit: `celsius` or `fahrenheit`.
  static let unitsKey = TemperatureUnit.settingKey
}

/// Draws the forecast and a Back button.
final class ForecastView: ViperView {
  private let canvas: any Canvas
  let presenter: ForecastPresenter

  init(canvas: any Canvas, presenter: ForecastPresenter) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: ForecastContract.backID) { presenter.didTapBack() }
  }

  func display(_ screen: ForecastScreen) {
    canvas.draw {
      switch screen {
      case .loading(let city):
        ViewNode.heading("Weather in \(city)")
        ViewNode.text("Asking the weather service…", tone: .muted)
      case .days(let city, let lines):
        ViewNode.heading("Weather in \(city)")
        for line in lines { ViewNode.text(line) }
      case .failed(let city, let reason):
        ViewNode.heading("Weather in \(city)")
        ViewNode.notice(.negative, reason)
      }
      ViewNode.button(id: ForecastContract.backID, title: "Back")
    }
  }
}

/// What the interactor tells the presenter.
@MainActor
protocol ForecastInteractorOutput: AnyObject {
  /// The forecast for `city`.
  func present(_ forecast: Forecast, for city: String)
  /// Why there is none for `city`.
  func presentFailure(_ reason: String, for city: String)
}

/// The only role that touches the weather service: asks it in the module's
/// work, and hands the answer, or why there is none, to the presenter.
final class ForecastInteractor: ViperInteractor {
  weak var presenter: (any ForecastInteractorOutput)?
  private let weather: ServiceHandle<WeatherService>
  private let work: any ModuleWork

  init(services: Services, work: any ModuleWork) {
    weather = services.service(WeatherService.self)
    self.work = work
  }

  /// Asks for `city`'s forecast; the answer arrives later, in work the host
  /// runs and cancels when the module goes.
  func fetchForecast(for city: String) {
    work.start("ask the weather service") { [weak self, weather] in
      do {
        let forecast = try await weather.forecast(city)
        self?.presenter?.present(forecast, for: city)
      } catch let failure as WeatherFailure {
        self?.presenter?.presentFailure(failure.reason, for: city)
      } catch let error as ServiceCallError {
        self?.presenter?.presentFailure("The weather service is unavailable: \(error.reason)", for: city)
      }
    }
  }
}

/// Asks the interactor once the module is attached, formats its answer in
/// the unit the person chose (the `weather.units` setting, redrawn when it
/// changes), and leaves on Back.
final class ForecastPresenter: ViperPresenter, ForecastInteractorOutput {
  weak var view: ForecastView?
  private let city: String
  private let interactor: ForecastInteractor
  private let router: any AppRouter
  private let settings: (any SettingsStore)?
  private var forecast: Forecast?

  init(city: String, interactor: ForecastInteractor, router: any AppRouter, settings: (any SettingsStore)?) {
    self.city = city
    self.interactor = interactor
    self.router = router
    self.settings = settings
  }

  func didTapBack() { router.pop() }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    settings?.observe(ForecastContract.unitsKey, by: self) { [weak self] _ in
      guard let self, let forecast = self.forecast else { return }
      self.present(forecast, for: self.city)
    }
    view?.display(.loading(city: city))
    interactor.fetchForecast(for: city)
  }

  func present(_ forecast: Forecast, for city: String) {
    self.forecast = forecast
    let unit = TemperatureUnit(setting: settings?.value(forKey: ForecastContract.unitsKey))
    view?.display(.days(city: city, lines: forecast.days.map { ForecastPresenter.line($0, in: unit) }))
  }

  func presentFailure(_ reason: String, for city: String) {
    view?.display(.failed(city: city, reason: reason))
  }

  /// `2026-11-27: 9 °C, low 4 °C, overcast`, or in °F.
  static func line(_ day: DayForecast, in unit: TemperatureUnit = .celsius) -> String {
    "\(day.date): \(day.shown(in: unit))"
  }
}

/// Builds the forecast screen.
struct ForecastFactory: ModuleFactory {
  static let contract = ForecastContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let interactor = ForecastInteractor(services: context.services, work: context.work)
    let presenter = ForecastPresenter(
      city: context.arguments.string("city") ?? "", interactor: interactor, router: context.router,
      settings: context.services.settings)
    let view = ForecastView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    interactor.presenter = presenter
    return Module(view: view, presenter: presenter, interactor: interactor)
  }
}

/// The plugin: the weather service and `weather:{city}`.
public enum WeatherPlugin: ViperPlugin {
  /// The factories of the modules this plugin offers.
  public static func factories() -> [any ModuleFactory] { [ForecastFactory()] }
  /// This release.
  public static let version: SemanticVersion = "1.0"
  /// The weather service.
  public static var providers: [any ServiceProvider.Type] { [WeatherProvider.self] }
  /// The forecast server.
  public static var hosts: [String] { ["api.open-meteo.com"] }
}
