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
    requires: [.required(WeatherService.self, "1.0"..<"2")])

  static let backID = "back"
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

/// Asks the service once the module is attached, formats its answer, and
/// leaves on Back.
final class ForecastPresenter: ViperPresenter {
  weak var view: ForecastView?
  private let city: String
  private let weather: ServiceHandle<WeatherService>
  private let work: any ModuleWork
  private let router: any AppRouter

  init(city: String, context: ModuleContext) {
    self.city = city
    weather = context.services.service(WeatherService.self)
    work = context.work
    router = context.router
  }

  func didTapBack() { router.pop() }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    view?.display(.loading(city: city))
    work.start("ask the weather service") { [weak self, weather, city] in
      let screen: ForecastScreen
      do {
        let forecast = try await weather.forecast(city)
        screen = .days(city: city, lines: forecast.days.map(ForecastPresenter.line))
      } catch let failure as WeatherFailure {
        screen = .failed(city: city, reason: failure.reason)
      } catch let error as ServiceCallError {
        screen = .failed(city: city, reason: "The weather service is unavailable: \(error.reason)")
      }
      self?.view?.display(screen)
    }
  }

  /// `2026-11-27: 9 °C, low 4 °C, overcast`.
  static func line(_ day: DayForecast) -> String { "\(day.date): \(day.shown)" }
}

/// Builds the forecast screen.
struct ForecastFactory: ModuleFactory {
  static let contract = ForecastContract.contract

  func build(_ context: ModuleContext) throws -> Module {
    let presenter = ForecastPresenter(city: context.arguments.string("city") ?? "", context: context)
    let view = ForecastView(canvas: context.canvas, presenter: presenter)
    presenter.view = view
    return Module(view: view, presenter: presenter)
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
