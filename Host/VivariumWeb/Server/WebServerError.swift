/// Why a server could not start: ``kind`` is stable, for tests and
/// programs; the description says what is wrong, for people.
package struct WebServerError: Error, Equatable, CustomStringConvertible {
  /// What is wrong, as a stable name.
  package enum Kind: String, Sendable {
    /// The host is not an IPv4 or IPv6 literal, nor `localhost`.
    case badAddress = "bad-address"
    /// Another socket is bound to the address and port.
    case addressInUse = "address-in-use"
    /// The socket could not be made, bound or listened on for another
    /// reason (the address is not this machine's, say), or the server was
    /// already stopped.
    case cannotListen = "cannot-listen"
  }

  /// What is wrong, as a stable name.
  package let kind: Kind
  /// What is wrong, for people.
  package let description: String

  /// An error of `kind` saying `description`.
  package init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }
}
