/// How plugin processes run: set by `vivarium run` and `render`.
package struct PluginProcessOptions: Sendable {
  /// The host executable, re-run as `EXECUTABLE __plugin FILE`.
  package var executable: String
  /// How long a module may take to answer before it is shown as not responding.
  package var responseLimit: Duration
  /// How long a plugin may take to load in its process.
  package var loadLimit: Duration
  /// The most memory (bytes of data) a plugin process may allocate.
  package var memoryLimit: Int
  /// Whether plugin processes are forked from a zygote (``PluginZygote``)
  /// rather than each started from the executable.
  package var forks = true
  /// Whether each plugin process confines itself before it loads its
  /// plugin (docs/what-a-plugin-can-do.md); false only with `--no-sandbox`.
  package var confined = true
  /// Whether a confined plugin process gets an empty network namespace of
  /// its own, where the kernel offers user namespaces; false only in the
  /// benchmark, which times the namespace on its own.
  package var ownNetwork = true

  /// Whether plugin processes get an empty network namespace: confined ones do.
  var ownsNetwork: Bool { confined && ownNetwork }

  /// Starts the zygote plugin processes are forked from now, so that its
  /// own start overlaps the host's instead of delaying the first plugin.
  package func prepare() {
    if forks { _ = PluginZygote.shared(executable, ownNetwork: ownsNetwork) }
  }

  /// The defaults: 3 s to answer, 10 s to load, 1 GiB of memory.
  package init(
    executable: String, responseLimit: Duration = .seconds(3), loadLimit: Duration = .seconds(10),
    memoryLimit: Int = 1 << 30
  ) {
    self.executable = executable
    self.responseLimit = responseLimit
    self.loadLimit = loadLimit
    self.memoryLimit = memoryLimit
  }
}
