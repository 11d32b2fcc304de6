import VivariumTools

/// `vivarium sdk`: where the SDK is, and which version, for plugin builds.
enum SDKCommand: Command {
  static let name = "sdk"
  static let summary = "Print where the SDK and test kit are, their version, what plugins must match."
  static let synopsis = "vivarium sdk [--path | --version] [--json]"
  static let details = """
    Prints what a plugin package outside this repository needs: the SDK and test kit
    package paths to depend on, the ViperKit version, and the compiler and plugin ABI a
    plugin must be built with to load in this host. VIVARIUM_SDK overrides the SDK path
    (the Host/SDK folder of a Vivarium checkout). --path and --version print one value,
    for scripts.
    """
  static let path = FlagOption("path", "Print only the SDK package path.")
  static let version = FlagOption("version", "Print only the ViperKit version.")
  static let options: [any CommandOption] = [path, version, CommonOptions.json]
  static let exitCodes =
    "0 printed; 1 the SDK package is missing at the path (the rest is still printed); 2 usage error."

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.isEmpty else { throw UsageError("unexpected argument '\(arguments.positionals[0])'") }
    let info = SDKInfo(environment: console.environment)
    if arguments.has(path) {
      console.out(info.packagePath)
    } else if arguments.has(version) {
      console.out(info.version)
    } else if arguments.has(CommonOptions.json) {
      console.json(info)
    } else {
      console.out(info.text(style: console.style))
    }
    return info.packageExists ? ExitCode.success : ExitCode.failure
  }
}
