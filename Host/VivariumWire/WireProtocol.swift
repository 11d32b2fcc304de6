/// The protocol's version and limits: what both sides of the wire must agree on.
package enum WireProtocol {
  /// Bumped on any change to the encoding of ``HostMessage`` or
  /// ``PluginMessage``: their cases, their fields, or the `Codable` form of
  /// a value they carry.
  package static let version = 15
  /// The largest frame either side accepts: a message longer than this
  /// crosses in several (``WireFrame``), so that a reader holds at most one
  /// frame beyond the message it is reading.
  package static let frameLimit = 1 << 20
  /// The largest message either side accepts, in all its frames: the
  /// `ready` message of a plugin whose contracts take up to 128 MiB (the
  /// loader's limit, which `PluginLimitsTests` holds under this), with room
  /// for the rest; a draw of a very long list fits many times over.
  package static let messageLimit = 129 << 20
  /// The deepest nesting of containers the decoder follows: a view tree
  /// takes two a level (the node, its children) and a draw message one
  /// more, so a tree 64 deep crosses and one deeper does not. A
  /// ``ViewTreeDiff`` nests no deeper than the tree it changes.
  package static let depthLimit = 129
  /// The longest a plugin process's work waits, suspended, for the host to
  /// answer one of its calls: far beyond any host that is not stuck. A call
  /// that holds the main actor waits at most what the host says
  /// (``HostMessage/answerWithin(seconds:)``).
  package static let answerLimit = Duration.seconds(120)
}
