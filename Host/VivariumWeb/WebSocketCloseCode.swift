/// Why a WebSocket connection closes (RFC 6455 §7.4, and the codes IANA
/// registered since): the codes defined, and those applications and
/// libraries may use (3000–4999).
package enum WebSocketCloseCode: Sendable, Hashable, CustomStringConvertible {
  /// 1000: the purpose of the connection is fulfilled.
  case normalClosure
  /// 1001: the endpoint is going away (a server shutting down, a page left).
  case goingAway
  /// 1002: the peer broke the protocol.
  case protocolError
  /// 1003: the peer sent a kind of data the endpoint does not take.
  case unsupportedData
  /// 1005: a close frame came without a code. Never sent.
  case noStatusReceived
  /// 1006: the connection ended without a close frame. Never sent.
  case abnormalClosure
  /// 1007: a message's data is not what its type says (text not UTF-8).
  case invalidPayload
  /// 1008: a message broke the endpoint's policy.
  case policyViolation
  /// 1009: a message is too big to take.
  case messageTooBig
  /// 1010: the client needed an extension the server did not agree to.
  case mandatoryExtension
  /// 1011: the server met a condition it could not handle.
  case internalError
  /// 1012: the service is restarting.
  case serviceRestart
  /// 1013: try again later.
  case tryAgainLater
  /// 1014: a gateway got a bad response.
  case badGateway
  /// 1015: the TLS handshake failed. Never sent.
  case tlsHandshake
  /// 3000–4999: registered with IANA (3000–3999) or private (4000–4999).
  case application(UInt16)

  /// The code of `code`: nil for a number no code has (0–999, 1004,
  /// 1016–2999, 5000 and up).
  package init?(code: UInt16) {
    switch code {
    case 1000: self = .normalClosure
    case 1001: self = .goingAway
    case 1002: self = .protocolError
    case 1003: self = .unsupportedData
    case 1005: self = .noStatusReceived
    case 1006: self = .abnormalClosure
    case 1007: self = .invalidPayload
    case 1008: self = .policyViolation
    case 1009: self = .messageTooBig
    case 1010: self = .mandatoryExtension
    case 1011: self = .internalError
    case 1012: self = .serviceRestart
    case 1013: self = .tryAgainLater
    case 1014: self = .badGateway
    case 1015: self = .tlsHandshake
    case 3000...4999: self = .application(code)
    default: return nil
    }
  }

  /// The number, as on the wire.
  package var code: UInt16 {
    switch self {
    case .normalClosure: 1000
    case .goingAway: 1001
    case .protocolError: 1002
    case .unsupportedData: 1003
    case .noStatusReceived: 1005
    case .abnormalClosure: 1006
    case .invalidPayload: 1007
    case .policyViolation: 1008
    case .messageTooBig: 1009
    case .mandatoryExtension: 1010
    case .internalError: 1011
    case .serviceRestart: 1012
    case .tryAgainLater: 1013
    case .badGateway: 1014
    case .tlsHandshake: 1015
    case .application(let code): code
    }
  }

  /// Whether the code may be in a close frame (§7.4.1): all but 1005,
  /// 1006 and 1015, which stand for what a frame could not say, and an
  /// ``application(_:)`` code out of 3000–4999.
  package var mayBeSent: Bool {
    switch self {
    case .noStatusReceived, .abnormalClosure, .tlsHandshake: false
    case .application(let code): (3000...4999).contains(code)
    default: true
    }
  }

  /// The number.
  package var description: String { String(code) }
}
