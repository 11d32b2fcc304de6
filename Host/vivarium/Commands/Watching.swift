import Foundation
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// `vivarium run` and `serve` `--watch [--build PACKAGE_DIR]`: a rebuilt plugin file is
/// reloaded in the running app; with `--build`, the package's sources are
/// built when they change.
@MainActor
final class Watching {
  static let watch = FlagOption(
    "watch",
    "Reload a plugin file when it is rebuilt: its modules are rebuilt in place, with their state; the rest of the app is untouched."
  )
  static let build = ValueOption(
    "build", "PACKAGE_DIR",
    "With --watch: build the plugin package in PACKAGE_DIR first and whenever its sources change (swift build), and load its plugins."
  )

  private let watcher: PluginWatcher
  private let builder: PackageBuilder?

  /// With `--build`: builds the package once, before anything is loaded,
  /// and adds the plugins it built to `--plugins`; the builder goes on to
  /// ``init(runtime:directories:hosting:builder:)``. Fails when it does not build.
  static func prepare(_ arguments: ParsedArguments, _ console: Console, command: String) throws -> (
    ParsedArguments, PackageBuilder?
  ) {
    guard let package = arguments.all(build).last else { return (arguments, nil) }
    guard arguments.has(watch) else {
      throw UsageError("--build works with --watch: vivarium \(command) --watch --build \(package)")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: package + "/Package.swift", isDirectory: &isDirectory),
      !isDirectory.boolValue
    else {
      throw UsageError(
        "--build '\(package)' is not a Swift package (it has no Package.swift); give your plugin's package folder")
    }
    console.progress(command, "building \(package) (swift build)…")
    let builder = PackageBuilder(directory: package)
    let outcome = builder.buildNow()
    guard outcome.succeeded else {
      throw CommandFailure(
        "the plugin package \(package) does not build; fix it and run again:\n" + outcome.errors.joined(separator: "\n")
      )
    }
    let products = PackageBuilder.products(in: package)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: products)) ?? []
    let plugins = names.filter { $0.hasSuffix(".so") }.sorted().map { products + "/" + $0 }.filter(
      PluginLoader.exportsEntry)
    guard !plugins.isEmpty else {
      throw CommandFailure(
        "\(package) built, but \(products) holds no plugin (a .so exporting vivarium_plugin_entry); make it a .dynamic library product"
      )
    }
    var arguments = arguments
    arguments.append(plugins, to: CommonOptions.plugins)
    return (arguments, builder)
  }

  /// Starts watching the plugin files of `directories` (and, with
  /// `--build`, the package's sources, with the `builder` that built them
  /// first) for `host`, telling each reload and build to the person with
  /// `tell` (a notice in each session shown); keep the result while the app
  /// runs.
  init(
    host: SharedHost, directories: [String], hosting: PluginProcessOptions?, builder: PackageBuilder?,
    tell: @escaping @MainActor (String, Tone) -> Void
  ) {
    let reloader = PluginReloader(hosting: hosting)
    // Loads by path, numbered in the order the builds were seen, and the
    // number of the last one taken: a load that finishes after a newer one
    // was taken is dropped, so two quick saves never end on the older build,
    // and a newer one that is refused leaves the older one taken.
    var loads: [String: Int] = [:]
    var taken: [String: Int] = [:]
    let watcher = PluginWatcher(directories: directories) { [weak host, weak builder] path in
      guard let host else { return }
      let saved = builder.flatMap { path.hasPrefix($0.products + "/") ? $0.savedAt : nil }
      loads[path, default: 0] += 1
      let load = loads[path, default: 0]
      // Loaded while the app goes on; taken in its turn.
      Task.immediate {
        let outcome = await reloader.load(path)
        guard load > taken[path, default: 0] else {
          if case .loaded(let plugin) = outcome { plugin.process?.terminate() }
          return
        }
        // The SDK's own libraries sit beside plugins in a build folder.
        if case .rejected(let rejection) = outcome, rejection.isSDKLibrary { return }
        if case .loaded = outcome { taken[path] = load }
        let reload = await host.reload(outcome)
        let text = reload.summary(after: saved.map { Date().timeIntervalSince($0) })
        host.services.logLine(reload.accepted ? .info : .warning, module: "host", text)
        tell(text, reload.accepted ? .positive : .negative)
      }
    }
    if let builder {
      builder.onStart = { files in
        let names = files.prefix(3).map(PathName.lastComponent) + (files.count > 3 ? ["…"] : [])
        let package = PathName.lastComponent(builder.directory)
        tell(names.isEmpty ? "Building \(package)…" : "Building \(package) (\(names.joined(separator: ", ")))…", .info)
      }
      builder.onEnd = { [weak host, weak watcher] outcome in
        guard let host else { return }
        host.services.logLine(outcome.succeeded ? .info : .warning, module: "host", outcome.output)
        guard !outcome.succeeded else {
          // The build has written its products: reload them now.
          watcher?.lookNow()
          return
        }
        // Sources changed while it ran (a save mid-build can fail it):
        // the next build, starting now, says how that one goes.
        guard !outcome.overtaken else { return }
        tell(
          "Build failed, the running version stays: \(outcome.errors.joined(separator: "; ")) ('log' has the rest)",
          .negative)
      }
      builder.start()
    }
    self.builder = builder
    self.watcher = watcher
    watcher.start()
  }

  /// Stops watching.
  func stop() {
    watcher.stop()
    builder?.stop()
  }
}
