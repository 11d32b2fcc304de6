import Testing
import ViperKit

@testable import VivariumRuntime

/// What a session keeps for the person while nobody looks (a browser tab
/// whose page is away): the newest notices and alerts, a bounded number.
@Suite("Notices and alerts kept for a session")
@MainActor
struct NotificationBoundsTests {
  @Test func theNewestNoticesAreKeptAndTheOldestDropped() {
    let person = HostNotifications()
    let raised = HostNotifications.noticesKept * 3
    for index in 0..<raised { person.notice("notice \(index)", tone: .info) }
    let kept = person.takeNotices().map(\.text)
    #expect(kept.count == HostNotifications.noticesKept)
    #expect(kept.last == "notice \(raised - 1)" && kept.first == "notice \(raised - HostNotifications.noticesKept)")
  }

  @Test func alertsAreBoundedAndAQuestionPastTheBoundIsAnsweredCautiously() {
    let person = HostNotifications()
    var answered: [Bool] = []
    person.ask(title: "First", question: "Go on?", .init(confirm: "Go", cancel: "Stay")) { answered.append($0) }
    for index in 0..<(HostNotifications.alertsKept * 2) { person.alert(title: "Alert \(index)", message: "m") }
    #expect(person.alerts.count == HostNotifications.alertsKept)
    #expect(person.alerts.first?.title == "First", "a question waits for its answer")
    #expect(person.alerts.last?.title == "Alert \(HostNotifications.alertsKept * 2 - 1)")
    person.ask(title: "Past", question: "Go on?", .init(confirm: "Go", cancel: "Stay")) { answered.append($0) }
    #expect(answered == [false], "answered at once, as the cautious answer")
    #expect(!person.alerts.contains { $0.title == "Past" })
  }
}
