import Foundation
import Glibc
import VivariumRuntime
import VivariumSupport

/// `vivarium plugins --live`: what each plugin of the app running on the
/// data directory is doing, as it publishes it each second.
extension PluginsCommand {
  /// Shows the activity the app running on the data directory publishes
  /// (``PluginActivityFile``), sorted by `--sort`: redrawn each second on a
  /// terminal, a table (or, with `--json`, a JSON line) each second
  /// elsewhere; `--times N` stops after N.
  static func live(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    let sortText = arguments.all(sort).last ?? PluginActivity.SortKey.cpu.rawValue
    guard let key = PluginActivity.SortKey(rawValue: sortText) else {
      let keys = PluginActivity.SortKey.allCases.map(\.rawValue)
      throw UsageError(
        "--sort '\(sortText)' is not a column\(Suggestion.didYouMean(sortText, among: keys)); give one of \(keys.joined(separator: ", "))"
      )
    }
    var remaining: Int?
    if let text = arguments.all(times).last {
      guard let count = Int(text), count > 0 else { throw UsageError("--times '\(text)' is not a number above 0") }
      remaining = count
    }
    let data = RuntimeSetup.dataDirectory(arguments, console)
    let redraws = console.terminalWidth != nil && !arguments.has(CommonOptions.json)
    while remaining.map({ $0 > 0 }) ?? true {
      let file = try fresh(in: data)
      let plugins = file.plugins.sorted { key.orders($0, before: $1) }
      if arguments.has(CommonOptions.json) {
        console.jsonLine(PluginActivityFile(host: file.host, time: file.time, plugins: plugins))
      } else {
        // The screen is cleared with the host's own sequence; every name goes through the console.
        if redraws { FileHandle.standardOutput.write(Data("\u{1B}[H\u{1B}[2J".utf8)) }
        console.out(table(plugins, host: file.host, sortedBy: key, style: console.style))
        if !redraws { console.out("") }
      }
      remaining = remaining.map { $0 - 1 }
      if remaining != 0 { Thread.sleep(forTimeInterval: 1) }
    }
    return ExitCode.success
  }

  /// One row of the table: `-` where there is no process.
  private static func cells(_ plugin: PluginActivity) -> [String] {
    let mebibytes = { (kib: Int?) -> String in kib.map { String(format: "%.1f", Double($0) / 1024) } ?? "-" }
    let cpu: String = plugin.cpuPercent.map { String(format: "%.1f", $0) } ?? "-"
    let pid: String = plugin.pid.map { String($0) } ?? "-"
    let calls = plugin.hostServiceCalls + plugin.businessServiceCalls
    return [
      plugin.plugin.oneLineVisible, plugin.state.rawValue, pid, cpu, mebibytes(plugin.residentKiB),
      mebibytes(plugin.proportionalKiB), String(plugin.modules), String(calls), String(plugin.httpRequests),
      String(plugin.restarts),
    ]
  }

  /// What the app running on `data` publishes once asked: a snapshot taken
  /// after the ask, waited for up to 3 s.
  private static func fresh(in data: String) throws -> PluginActivityFile {
    let asked = Date().timeIntervalSince1970
    PluginActivityFile.ask(in: data)
    let deadline = ContinuousClock.now + .seconds(3)
    while true {
      switch PluginActivityFile.read(in: data) {
      case .success(let file) where file.time >= asked - 0.5: return file
      case .failure(let error) where ContinuousClock.now >= deadline: throw CommandFailure(error.description)
      case .success where ContinuousClock.now >= deadline:
        throw CommandFailure(PluginActivityFileError.noAnswer(data).description)
      default: Thread.sleep(forTimeInterval: 0.1)
      }
    }
  }

  /// The plugins as a table, a row each.
  static func table(_ plugins: [PluginActivity], host: Int32, sortedBy key: PluginActivity.SortKey, style: TextStyle)
    -> String
  {
    let header = [
      "PLUGIN", "STATE", "PID", "CPU%", "RSS MiB", "PSS MiB", "MODULES", "CALLS/MIN", "HTTP/MIN", "RESTARTS",
    ]
    let rows = plugins.map(cells)
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { column, cell in
        column == 0 || column == 1
          ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
          : String(repeating: " ", count: widths[column] - cell.count) + cell
      }.joined(separator: "  ")
    }
    let title = "Plugins of the app in process \(host), sorted by \(key.rawValue) (Ctrl-C ends)"
    return ([style.bold(title), style.dim(line(header))] + rows.map(line)).joined(separator: "\n")
  }
}
