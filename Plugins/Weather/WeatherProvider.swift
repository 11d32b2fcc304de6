import Foundation
import ViperKit
import WeatherInterface

/// Provides ``WeatherService`` from Open-Meteo's free forecast API, through
/// the host's http service: the plugin declares the one host it reaches
/// (``WeatherPlugin/hosts``), and the demo replays recorded answers
/// (Plugins/demo-http), so it runs offline and the same every time.
@MainActor
final class WeatherProvider: ServiceProvider {
  static let services: [Services.Name] = [.http]
  private let http: (any HTTPClient)?

  init(services: Services) {
    http = services.http
  }

  func answer(_ answers: inout ServiceAnswers<WeatherService>) {
    answers.on(\.forecast) { [http] city in
      guard let place = Place.named(city) else {
        throw WeatherFailure(
          .unknownCity, "no city '\(city)'; known: \(Place.all.map(\.name).joined(separator: ", "))")
      }
      guard let http else { throw WeatherFailure(.unavailable, "the host gives this plugin no http service") }
      let response: HTTPResponse
      do {
        response = try await http.send(HTTPRequest(OpenMeteo.url(for: place)))
      } catch let error as HTTPError {
        throw WeatherFailure(.unavailable, error.reason)
      }
      guard response.status == 200 else {
        throw WeatherFailure(.unavailable, "the forecast server answered \(response.status)")
      }
      return try OpenMeteo.forecast(for: place.name, from: response.body)
    }
  }
}

/// A city the service knows, and where it is.
struct Place: Equatable {
  let name: String
  let latitude: Double
  let longitude: Double

  static let all = [
    Place(name: "London", latitude: 51.51, longitude: -0.13),
    Place(name: "New York", latitude: 40.71, longitude: -74.01),
    Place(name: "Paris", latitude: 48.85, longitude: 2.35),
    Place(name: "Tokyo", latitude: 35.69, longitude: 139.69),
  ]

  /// The city called `name`, whatever its case.
  static func named(_ name: String) -> Place? {
    all.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
  }
}

/// Open-Meteo's forecast API: the request for a place, and its answer read.
enum OpenMeteo {
  /// How many days a forecast covers, today first.
  static let days = 3

  static func url(for place: Place) -> String {
    "https://api.open-meteo.com/v1/forecast?latitude=\(place.latitude)&longitude=\(place.longitude)"
      + "&daily=weather_code,temperature_2m_max,temperature_2m_min&timezone=auto&forecast_days=\(days)"
  }

  /// The answer's `daily` block, the only part read.
  private struct Answer: Decodable {
    struct Daily: Decodable {
      let time: [String]
      let weather_code: [Int]
      let temperature_2m_max: [Double]
      let temperature_2m_min: [Double]
    }
    let daily: Daily
  }

  static func forecast(for city: String, from body: [UInt8]) throws(WeatherFailure) -> Forecast {
    let daily: Answer.Daily
    do {
      daily = try JSONDecoder().decode(Answer.self, from: Data(body)).daily
    } catch {
      throw WeatherFailure(.unavailable, "the forecast server's answer is not a forecast: \(error)")
    }
    let count = [daily.weather_code.count, daily.temperature_2m_max.count, daily.temperature_2m_min.count]
      .reduce(daily.time.count, min)
    guard count > 0 else { throw WeatherFailure(.unavailable, "the forecast server's answer has no days") }
    return Forecast(
      city: city,
      days: (0..<count).map {
        DayForecast(
          date: daily.time[$0], highC: daily.temperature_2m_max[$0], lowC: daily.temperature_2m_min[$0],
          summary: summary(ofCode: daily.weather_code[$0]))
      })
  }

  /// The WMO weather interpretation code's meaning, as Open-Meteo documents it.
  static func summary(ofCode code: Int) -> String {
    switch code {
    case 0: "clear sky"
    case 1: "mainly clear"
    case 2: "partly cloudy"
    case 3: "overcast"
    case 45, 48: "fog"
    case 51, 53, 55, 56, 57: "drizzle"
    case 61, 66, 80: "light rain"
    case 63, 81: "rain"
    case 65, 67, 82: "heavy rain"
    case 71, 73, 75, 77, 85, 86: "snow"
    case 95, 96, 99: "thunderstorm"
    default: "weather code \(code)"
    }
  }
}
