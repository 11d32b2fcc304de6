import Glibc
import ViperKit

// The roles of `faulty:{how}` and `faulty:demo`. The interactors misbehave;
// the presenters decide when.

/// View → Presenter, `faulty:{how}`.
protocol FaultyViewOutput: ViperPresenter {
  func didTapGo()
}

/// Presenter → View, `faulty:{how}`.
protocol FaultyViewInput: ViperView {
  func display(_ screen: FaultyScreen)
}

/// Presenter → Interactor, `faulty:{how}`.
protocol FaultyInteractorInput: ViperInteractor {
  func misbehave() -> Never
  /// For `slow`: blocks for a second, then reads its storage.
  func dawdle()
}

/// View → Presenter, `faulty:demo`.
protocol FaultyDemoViewOutput: ViperPresenter {
  func didType(note: String)
  func didTapSave()
  func didTapSaveNow()
  func didTapCrash()
}

/// Presenter → View, `faulty:demo`.
protocol FaultyDemoViewInput: ViperView {
  func display(_ screen: FaultyDemoScreen)
}

/// Presenter → Interactor, `faulty:demo`.
protocol FaultyDemoInteractorInput: ViperInteractor {
  func loadSavedNote()
  func save(note: String)
  func saveNow(note: String)
  func crash() -> Never
}

/// Interactor → Presenter, `faulty:demo`.
protocol FaultyDemoInteractorOutput: ViperPresenter {
  func present(savedNote: String?)
  func presentSaveFailed(_ message: String)
}

/// Draws the Misbehave button and forwards its tap.
final class FaultyView: ViperView, FaultyViewInput {
  private let canvas: any Canvas
  let presenter: any FaultyViewOutput

  init(canvas: any Canvas, presenter: any FaultyViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    if event == .tap(button: FaultyContract.goID) { presenter.didTapGo() }
  }

  func display(_ screen: FaultyScreen) {
    canvas.draw {
      ViewNode.heading(screen.heading)
      ViewNode.text(screen.explanation)
      ViewNode.button(id: FaultyContract.goID, title: "Misbehave")
      if screen.tapped { ViewNode.text("Tapped") }
    }
  }
}

/// Misbehaves on attach or on the tap, as `at` says, and otherwise draws.
final class FaultyPresenter: ViperPresenter, FaultyViewOutput {
  weak var view: (any FaultyViewInput)?
  /// For `faulty:leak`: the view, held strongly, so neither is ever freed.
  var cycle: AnyObject?
  let interactor: any FaultyInteractorInput
  let router: FaultyRouter
  private let misbehaviour: Misbehaviour
  private let moment: Moment
  private var tapped = false

  init(interactor: any FaultyInteractorInput, router: FaultyRouter, misbehaviour: Misbehaviour, moment: Moment) {
    self.interactor = interactor
    self.router = router
    self.misbehaviour = misbehaviour
    self.moment = moment
  }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    if moment == .present { interactor.misbehave() }
    show()
  }

  func didTapGo() {
    if moment == .tap, misbehaviour == .slow {
      interactor.dawdle()
    } else if moment == .tap {
      interactor.misbehave()
    }
    tapped = true
    show()
  }

  private func show() {
    let explanation =
      moment == .tap
      ? "Tapping Misbehave makes this module \(misbehaviour.summary); the host should keep running."
      : "This module was built with at=\(moment.rawValue): tapping Misbehave only says it was tapped."
    view?.display(
      FaultyScreen(heading: "Faulty: \(misbehaviour.rawValue)", explanation: explanation, tapped: tapped))
  }
}

/// Does the misbehaving.
final class FaultyInteractor: ViperInteractor, FaultyInteractorInput {
  private let misbehaviour: Misbehaviour
  private let moment: Moment

  private let storage: (any KeyValueStore)?

  init(misbehaviour: Misbehaviour, moment: Moment, storage: (any KeyValueStore)?) {
    self.misbehaviour = misbehaviour
    self.moment = moment
    self.storage = storage
  }

  func misbehave() -> Never { misbehaviour.perform(at: moment) }

  func dawdle() {
    sleep(1)
    _ = storage?.value(forKey: FaultyContract.noteKey)
  }
}

/// Navigates nowhere: each faulty module is one screen.
final class FaultyRouter: ViperRouter {}

/// Draws the note, the saved note and the Crash button.
final class FaultyDemoView: ViperView, FaultyDemoViewInput {
  private let canvas: any Canvas
  let presenter: any FaultyDemoViewOutput

  init(canvas: any Canvas, presenter: any FaultyDemoViewOutput) {
    self.canvas = canvas
    self.presenter = presenter
  }

  func handle(_ event: ViewEvent) {
    switch event {
    case .type(FaultyContract.noteID, let text): presenter.didType(note: text)
    case .tap(FaultyContract.saveID): presenter.didTapSave()
    case .tap(FaultyContract.saveNowID): presenter.didTapSaveNow()
    case .tap(FaultyContract.crashID): presenter.didTapCrash()
    default: break
    }
  }

  func display(_ screen: FaultyDemoScreen) {
    canvas.draw {
      ViewNode.heading("Faulty plugin")
      ViewNode.text("This plugin crashes on request; the host keeps running and shows the crash in its place.")
      ViewNode.field(id: FaultyContract.noteID, label: "Note", value: screen.note)
      ViewNode.button(id: FaultyContract.saveID, title: "Save note")
      ViewNode.button(id: FaultyContract.saveNowID, title: "Save now, holding the module")
      ViewNode.text(screen.saved)
      if let problem = screen.problem { ViewNode.notice(.negative, problem) }
      ViewNode.button(id: FaultyContract.crashID, title: "Crash")
    }
  }
}

/// Holds the note typed so far and shows the one saved.
final class FaultyDemoPresenter: ViperPresenter, FaultyDemoViewOutput, FaultyDemoInteractorOutput {
  weak var view: (any FaultyDemoViewInput)?
  let interactor: any FaultyDemoInteractorInput
  let router: FaultyRouter
  private var note = ""
  private var saved: String?
  private var problem: String?

  init(interactor: any FaultyDemoInteractorInput, router: FaultyRouter) {
    self.interactor = interactor
    self.router = router
  }

  func lifecycle(_ event: LifecycleEvent) {
    if event == .attach { interactor.loadSavedNote() }
  }

  func didType(note: String) {
    self.note = note
    show()
  }

  func didTapSave() { interactor.save(note: note) }

  func didTapSaveNow() { interactor.saveNow(note: note) }

  func didTapCrash() { interactor.crash() }

  func present(savedNote: String?) {
    saved = savedNote
    problem = nil
    show()
  }

  func presentSaveFailed(_ message: String) {
    problem = message
    show()
  }

  private func show() {
    view?.display(FaultyDemoScreen(note: note, saved: "Saved note: \(saved ?? "(none)")", problem: problem))
  }
}

/// At `leave`, it misbehaves when asked whether it may be left; `hang`
/// waits without blocking its process until the host stops waiting.
extension FaultyPresenter: LeaveGuard {
  func shouldLeave() async -> LeaveDecision {
    guard moment == .leave else { return .leave }
    guard misbehaviour == .hang else { interactor.misbehave() }
    // Answers only once the host cancels the question.
    try? await Task.sleep(for: .seconds(86_400))
    return .stay(reason: "faulty: asked to hang when left")
  }
}

/// A note typed and not saved is not lost without asking the person.
extension FaultyDemoPresenter: LeaveGuard {
  func shouldLeave() async -> LeaveDecision {
    guard !note.isEmpty, note != saved else { return .leave }
    return .ask(
      question: "Discard your changes? The note you typed is not saved.", confirm: "Discard", cancel: "Keep editing")
  }
}

/// Keeps the note in the plugin's storage, and crashes when asked.
final class FaultyDemoInteractor: ViperInteractor, FaultyDemoInteractorInput {
  weak var presenter: (any FaultyDemoInteractorOutput)?
  private let services: Services
  private let work: any ModuleWork

  init(services: Services, work: any ModuleWork) {
    self.services = services
    self.work = work
  }

  func loadSavedNote() {
    presenter?.present(savedNote: services.storage?.value(forKey: FaultyContract.noteKey))
  }

  /// Saves with the blocking `set`, holding the module (in a plugin
  /// process, its main actor) until the host has saved the note, or for at
  /// most the host's response limit.
  func saveNow(note: String) {
    do {
      try services.storage?.set(note.isEmpty ? nil : note, forKey: FaultyContract.noteKey)
      loadSavedNote()
    } catch {
      presenter?.presentSaveFailed("Could not save the note: \(error)")
    }
  }

  /// Saves from work: the module goes on with its events and drawing
  /// while the host saves the note.
  func save(note: String) {
    work.start("saving the note") { [weak self, storage = services.storage] in
      do {
        try await storage?.save(note.isEmpty ? nil : note, forKey: FaultyContract.noteKey)
        self?.loadSavedNote()
      } catch {
        self?.presenter?.presentSaveFailed("Could not save the note: \(error)")
      }
    }
  }

  func crash() -> Never { fatalError("faulty: the Crash button was tapped") }
}
