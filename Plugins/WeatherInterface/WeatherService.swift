import ViperKit

/// The weather business service: the interface the Weather plugin provides
/// and the dashboard uses, declared once here, in the small package both
/// depend on (each links its own copy; the two share only the wire form).
public enum WeatherService: ServiceInterface {
  /// `weather`.
  public static let name = "weather"
  /// The interface's version.
  public static let version: SemanticVersion = "1.0"
  /// The forecast for a city, today first: `try await weather.forecast("London")`.
  /// Fails with ``WeatherFailure`` when the city is unknown or the forecast
  /// cannot be fetched.
  public static let forecast = ServiceOperation<String, Forecast>("forecast", failure: WeatherFailure.self)
}

/// A city's forecast, day by day.
public struct Forecast: Codable, Sendable, Equatable {
  /// The city, as the caller named it.
  public var city: String
  /// The days forecast, today first; never empty.
  public var days: [DayForecast]

  /// A forecast.
  public init(city: String, days: [DayForecast]) {
    self.city = city
    self.days = days
  }
}

/// One day of a forecast.
public struct DayForecast: Codable, Sendable, Equatable {
  /// The day, `2026-11-27`, in the city's calendar.
  public var date: String
  /// The day's highest temperature, in degrees Celsius.
  public var highC: Double
  /// The day's lowest temperature, in degrees Celsius.
  public var lowC: Double
  /// What the sky does, in a few words: `overcast`, `light rain`.
  public var summary: String

  /// A day's forecast.
  public init(date: String, highC: Double, lowC: Double, summary: String) {
    self.date = date
    self.highC = highC
    self.lowC = lowC
    self.summary = summary
  }
}

extension DayForecast {
  /// The day as one line shows it: `9 °C, low 4 °C, overcast`, degrees
  /// rounded to whole ones.
  public var shown: String { shown(in: .celsius) }

  /// The day as one line shows it in `unit`: `9 °C, low 4 °C, overcast`
  /// or `48 °F, low 39 °F, overcast`, degrees rounded to whole ones.
  public func shown(in unit: TemperatureUnit) -> String {
    "\(unit.degrees(highC)) \(unit.symbol), low \(unit.degrees(lowC)) \(unit.symbol), \(summary)"
  }
}

/// How temperatures are shown: the person's choice, kept in the app-wide
/// setting ``settingKey``, which the Weather plugin declares and every
/// plugin may read.
public enum TemperatureUnit: String, CaseIterable, Sendable {
  /// Degrees Celsius, the default.
  case celsius
  /// Degrees Fahrenheit.
  case fahrenheit

  /// The setting that holds the unit's raw value: `weather.units`.
  public static let settingKey = "weather.units"

  /// The unit a setting's value names; Celsius for none or another.
  public init(setting value: ArgumentValue?) {
    self = value?.stringValue.flatMap(TemperatureUnit.init(rawValue:)) ?? .celsius
  }

  /// `°C` or `°F`.
  public var symbol: String { self == .celsius ? "°C" : "°F" }

  /// `celsius` in this unit, rounded to a whole degree.
  public func degrees(_ celsius: Double) -> Int {
    Int((self == .celsius ? celsius : celsius * 9 / 5 + 32).rounded())
  }
}

/// Why there is no forecast: the service's own failure, which a consumer
/// catches as this type.
public struct WeatherFailure: Error, Codable, Sendable, Equatable {
  /// What went wrong, stable.
  public enum Kind: String, Codable, Sendable {
    /// The service knows no such city.
    case unknownCity
    /// The forecast could not be fetched or read.
    case unavailable
  }

  /// What went wrong.
  public var kind: Kind
  /// Why, for people.
  public var reason: String

  /// A failure.
  public init(_ kind: Kind, _ reason: String) {
    self.kind = kind
    self.reason = reason
  }
}
