/// What a module promises: pure data the host reads without running the
/// module. It drives URN routing, argument validation, the route catalog and
/// the conformance checks.
///
/// A conformer of ``ModuleFactory`` returns the same contract every time.
/// Every placeholder in ``urn`` must be declared in ``arguments``.
public struct Contract: Codable, Hashable, Sendable {
  /// The URN pattern the module answers, for example `items:detail:{itemID}`.
  /// Segments are separated by `:`; `{name}` is a placeholder for the
  /// argument `name`. The first segment must be a literal.
  public var urn: String
  /// Raised by the plugin author whenever the contract changes.
  public var version: Int
  /// One sentence saying what the module shows, for the route catalog.
  public var summary: String
  /// Named, typed arguments the module is built from.
  public var arguments: [ArgumentSpec]
  /// Messages the parent may send to the module.
  public var inputs: [MessageSpec]
  /// Messages the module may emit to its parent.
  public var outputs: [MessageSpec]
  /// Named places where the module embeds child modules.
  public var slots: [SlotSpec]
  /// The host services the module's interactor requires; in JSON, their
  /// names (`["storage", "clock"]`).
  public var services: [Services.Name]
  /// Conditions the host checks before it builds the module; the first that
  /// fails sends the person elsewhere.
  public var guards: [RouteGuard]
  /// Every screen the module may push, present or replace itself with
  /// (ViperKit 2.4). A request to anything else is reported by the host and
  /// fails the conformance checks. Empty in contracts of plugins built
  /// against earlier versions, whose requests are not checked.
  public var opens: [NavigationTarget]
  /// The business services the module uses, each with the versions it
  /// accepts (ViperKit 2.7): `.required(WeatherService.self, "1.0"..<"2")`.
  /// Empty in contracts of plugins built against earlier versions.
  public var requires: [ServiceRequirement]
  /// The app-wide settings the module's plugin owns (ViperKit 3.0): only
  /// it may change them, and other plugins read only those declared
  /// readable by others. Empty in contracts of plugins built against
  /// earlier versions.
  public var settings: [SettingDeclaration]
  /// The commands the module offers the person while it is shown
  /// (ViperKit 3.1), each with an optional key; it receives them as
  /// ``ViewEvent/command(id:)``. Empty in contracts of plugins built
  /// against earlier versions.
  public var commands: [CommandSpec]

  /// Creates a contract; everything but the URN pattern and summary is optional.
  public init(
    urn: String, version: Int = 1, summary: String, arguments: [ArgumentSpec] = [],
    inputs: [MessageSpec] = [], outputs: [MessageSpec] = [], slots: [SlotSpec] = [],
    services: [Services.Name] = [], guards: [RouteGuard] = [], opens: [NavigationTarget] = [],
    requires: [ServiceRequirement] = [], settings: [SettingDeclaration] = [], commands: [CommandSpec] = []
  ) {
    self.urn = urn
    self.version = version
    self.summary = summary
    self.arguments = arguments
    self.inputs = inputs
    self.outputs = outputs
    self.slots = slots
    self.services = services
    self.guards = guards
    self.opens = opens
    self.requires = requires
    self.settings = settings
    self.commands = commands
  }

  /// Creates a contract that declares no command: the initializer of
  /// ViperKit 3.0, kept for plugins built against it.
  @_disfavoredOverload
  public init(
    urn: String, version: Int = 1, summary: String, arguments: [ArgumentSpec] = [],
    inputs: [MessageSpec] = [], outputs: [MessageSpec] = [], slots: [SlotSpec] = [],
    services: [Services.Name] = [], guards: [RouteGuard] = [], opens: [NavigationTarget] = [],
    requires: [ServiceRequirement] = [], settings: [SettingDeclaration] = []
  ) {
    self.init(
      urn: urn, version: version, summary: summary, arguments: arguments, inputs: inputs, outputs: outputs,
      slots: slots, services: services, guards: guards, opens: opens, requires: requires, settings: settings,
      commands: [])
  }

  /// Creates a contract that declares no setting: the initializer of
  /// ViperKit 2.7, kept for plugins built against it.
  @_disfavoredOverload
  public init(
    urn: String, version: Int = 1, summary: String, arguments: [ArgumentSpec] = [],
    inputs: [MessageSpec] = [], outputs: [MessageSpec] = [], slots: [SlotSpec] = [],
    services: [Services.Name] = [], guards: [RouteGuard] = [], opens: [NavigationTarget] = [],
    requires: [ServiceRequirement] = []
  ) {
    self.init(
      urn: urn, version: version, summary: summary, arguments: arguments, inputs: inputs, outputs: outputs,
      slots: slots, services: services, guards: guards, opens: opens, requires: requires, settings: [])
  }

  /// Creates a contract that requires no business service: the
  /// initializer of ViperKit 2.4 to 2.6, kept for plugins built against them.
  @_disfavoredOverload
  public init(
    urn: String, version: Int = 1, summary: String, arguments: [ArgumentSpec] = [],
    inputs: [MessageSpec] = [], outputs: [MessageSpec] = [], slots: [SlotSpec] = [],
    services: [Services.Name] = [], guards: [RouteGuard] = [], opens: [NavigationTarget] = []
  ) {
    self.init(
      urn: urn, version: version, summary: summary, arguments: arguments, inputs: inputs, outputs: outputs,
      slots: slots, services: services, guards: guards, opens: opens, requires: [])
  }

  /// Creates a contract that opens nothing: the initializer of ViperKit 2.3,
  /// kept for plugins built against it.
  @_disfavoredOverload
  public init(
    urn: String, version: Int = 1, summary: String, arguments: [ArgumentSpec] = [],
    inputs: [MessageSpec] = [], outputs: [MessageSpec] = [], slots: [SlotSpec] = [],
    services: [Services.Name] = [], guards: [RouteGuard] = []
  ) {
    self.init(
      urn: urn, version: version, summary: summary, arguments: arguments, inputs: inputs, outputs: outputs,
      slots: slots, services: services, guards: guards, opens: [], requires: [])
  }

  /// Decodes a contract; ``opens`` (ViperKit 2.4), ``requires`` (2.7),
  /// ``settings`` (3.0) and ``commands`` (3.1), which earlier contracts
  /// lack, are empty when they are missing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    urn = try container.decode(String.self, forKey: .urn)
    version = try container.decode(Int.self, forKey: .version)
    summary = try container.decode(String.self, forKey: .summary)
    arguments = try container.decode([ArgumentSpec].self, forKey: .arguments)
    inputs = try container.decode([MessageSpec].self, forKey: .inputs)
    outputs = try container.decode([MessageSpec].self, forKey: .outputs)
    slots = try container.decode([SlotSpec].self, forKey: .slots)
    services = try container.decode([Services.Name].self, forKey: .services)
    guards = try container.decode([RouteGuard].self, forKey: .guards)
    opens = try container.decodeIfPresent([NavigationTarget].self, forKey: .opens) ?? []
    requires = try container.decodeIfPresent([ServiceRequirement].self, forKey: .requires) ?? []
    settings = try container.decodeIfPresent([SettingDeclaration].self, forKey: .settings) ?? []
    commands = try container.decodeIfPresent([CommandSpec].self, forKey: .commands) ?? []
  }

  /// The argument named `name`, if the contract declares one.
  public func argument(named name: String) -> ArgumentSpec? {
    arguments.first { $0.name == name }
  }
}

/// The type of an argument's value.
public enum ArgumentType: String, Codable, Hashable, Sendable, CaseIterable {
  /// Any text.
  case string
  /// A whole number in decimal, optionally with a leading `-`.
  case int
  /// `true` or `false`.
  case bool
  /// A decimal number such as `2.5`.
  case double
}

/// One argument a module is built from.
public struct ArgumentSpec: Codable, Hashable, Sendable {
  /// The name used in URN placeholders and `--arg NAME=VALUE`.
  public var name: String
  /// The type values are checked against.
  public var type: ArgumentType
  /// Whether a value must be given. A required argument has no default.
  public var required: Bool
  /// The value used when none is given, for optional arguments.
  public var defaultValue: ArgumentValue?
  /// What the argument means, for the route catalog.
  public var description: String
  /// The only values allowed, when the argument is a choice (such as a
  /// module configuration); empty when any value of ``type`` is allowed.
  public var choices: [ArgumentValue]

  /// A required argument.
  public static func required(_ name: String, _ type: ArgumentType, _ description: String)
    -> ArgumentSpec
  {
    ArgumentSpec(name: name, type: type, required: true, defaultValue: nil, description: description)
  }

  /// An optional argument with a default value (whose type must be `type`).
  public static func optional(
    _ name: String, _ type: ArgumentType, default value: ArgumentValue, _ description: String
  ) -> ArgumentSpec {
    ArgumentSpec(name: name, type: type, required: false, defaultValue: value, description: description)
  }

  /// An optional string argument limited to `choices`, defaulting to the first.
  /// Use it to choose between configurations of one module.
  public static func choice(_ name: String, _ choices: [String], _ description: String) -> ArgumentSpec {
    ArgumentSpec(
      name: name, type: .string, required: false, defaultValue: choices.first.map(ArgumentValue.string),
      description: description, choices: choices.map(ArgumentValue.string))
  }

  /// Creates an argument from all its parts.
  public init(
    name: String, type: ArgumentType, required: Bool, defaultValue: ArgumentValue?,
    description: String, choices: [ArgumentValue] = []
  ) {
    self.name = name
    self.type = type
    self.required = required
    self.defaultValue = defaultValue
    self.description = description
    self.choices = choices
  }
}

/// A message that crosses between a module and its parent.
public struct MessageSpec: Codable, Hashable, Sendable {
  /// The message name, for example `itemSelected`.
  public var name: String
  /// The payload's fields and their types.
  public var fields: [String: ArgumentType]
  /// What the message means.
  public var description: String

  /// Creates a message description.
  public init(name: String, fields: [String: ArgumentType] = [:], description: String) {
    self.name = name
    self.fields = fields
    self.description = description
  }

  /// The field name ``init(_:_:)`` declares for a type with a field
  /// messages cannot carry; the contract checks report it.
  public static let unsupportedField = "(unsupported)"

  /// Declares the ``ModuleMessage`` type `type`: its name and its fields
  /// read from the type itself. A type with a field messages cannot carry is
  /// declared with the single field ``unsupportedField``, which the contract
  /// checks report.
  public init<M: ModuleMessage>(_ type: M.Type, _ description: String) {
    self.init(
      name: M.name, fields: FieldsDecoder.declaredFields(of: type) ?? [MessageSpec.unsupportedField: .string],
      description: description)
  }
}

/// A condition a module requires before the host builds it, and where the
/// person goes instead: `RouteGuard(requires: "session.user", otherwise:
/// "login:form", reason: "Sign in to see your dashboard.")`.
///
/// The condition is an app-wide setting (``SettingsStore``): it holds when
/// the setting is set to anything but `false` or the empty string. When it
/// does not, the host opens ``otherwise`` in place of the whole link the
/// person asked for, says ``reason``, and opens the link once the setting is
/// set (after signing in, say).
public struct RouteGuard: Codable, Hashable, Sendable {
  /// The setting that must be set.
  public var setting: String
  /// The URN opened instead while it is not.
  public var otherwise: String
  /// Why, for the person.
  public var reason: String

  /// A guard requiring the setting `setting`.
  public init(requires setting: String, otherwise: String, reason: String) {
    self.setting = setting
    self.otherwise = otherwise
    self.reason = reason
  }

  /// Whether `value`, the setting's value, lets the module open.
  public static func holds(_ value: ArgumentValue?) -> Bool {
    switch value {
    case nil, .bool(false), .string(""): false
    default: true
    }
  }
}

/// A named place in a module's view where child modules are embedded.
public struct SlotSpec: Codable, Hashable, Sendable {
  /// The slot name, matching a ``ViewNode/slot(_:)`` the view draws.
  public var name: String
  /// URN patterns of the modules the slot accepts.
  public var accepts: [String]
  /// How the slot holds its children.
  public var kind: SlotKind
  /// What goes there.
  public var description: String

  /// Creates a slot description.
  public init(name: String, accepts: [String], kind: SlotKind = .single, description: String) {
    self.name = name
    self.accepts = accepts
    self.kind = kind
    self.description = description
  }
}

/// How a slot holds the child modules embedded in it.
public enum SlotKind: String, Codable, Hashable, Sendable {
  /// One child; embedding another replaces it.
  case single
  /// Any number of children, all shown, in the order embedded (a feed's sections).
  case stack
  /// Any number of children, all kept alive, one shown at a time (tabs).
  case tabs
}
