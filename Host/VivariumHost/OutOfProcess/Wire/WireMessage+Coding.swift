import Foundation
import ViperKit

extension WireMessage {
  /// The message as a frame's payload: its kind, then its fields.
  var encoded: [UInt8] {
    var writer = WireWriter()
    writer.byte(kind)
    encodeFields(&writer)
    return writer.bytes
  }

  /// The message a frame's payload holds; throws for anything else: an
  /// unknown kind, a value cut short or out of range, bytes left over.
  static func decode(_ payload: [UInt8]) throws(WireError) -> WireMessage {
    var reader = WireReader(payload)
    let message = try decodeFields(kind: try reader.byte(), &reader)
    guard reader.isAtEnd else { throw WireError("a \(message.name) message has bytes left over") }
    return message
  }

  private var kind: UInt8 {
    switch self {
    case .ready: 0
    case .refused: 1
    case .build: 2
    case .lifecycle: 3
    case .event: 4
    case .message: 5
    case .answer: 6
    case .woke: 7
    case .done: 8
    case .built: 9
    case .buildFailed: 10
    case .draw: 11
    case .request: 12
    case .service: 13
    case .workStarted: 14
    case .workEnded: 15
    case .sleep: 16
    case .cancelSleep: 17
    case .leaked: 18
    case .restorationState: 19
    case .mapped: 20
    case .storeCopy: 21
    case .storeChanged: 22
    }
  }

  /// The message's kind, for error messages.
  var name: String {
    switch self {
    case .ready: "ready"
    case .refused: "refused"
    case .build: "build"
    case .lifecycle: "lifecycle"
    case .event: "event"
    case .message: "message"
    case .answer: "answer"
    case .woke: "woke"
    case .done: "done"
    case .built: "built"
    case .buildFailed: "buildFailed"
    case .draw: "draw"
    case .request: "request"
    case .service: "service"
    case .workStarted: "workStarted"
    case .workEnded: "workEnded"
    case .sleep: "sleep"
    case .cancelSleep: "cancelSleep"
    case .leaked: "leaked"
    case .restorationState: "restorationState"
    case .mapped: "mapped"
    case .storeCopy: "storeCopy"
    case .storeChanged: "storeChanged"
    }
  }

  private func encodeFields(_ writer: inout WireWriter) {
    switch self {
    case .ready(let version, let name, let sdkVersion, let contracts):
      writer.int(version)
      writer.string(name)
      writer.string(sdkVersion)
      writer.array(contracts) { $0.contract($1) }
    case .refused(let kind, let reasons):
      writer.string(kind)
      writer.array(reasons) { $0.string($1) }
    case .build(let call, let module, let factory, let urn, let arguments, let services, let restoring):
      writer.unsigned(UInt64(call))
      writer.unsigned(UInt64(module))
      writer.int(factory)
      writer.string(urn)
      writer.fields(arguments)
      writer.array(services) { $0.string($1) }
      writer.optionalString(restoring)
    case .lifecycle(let call, let module, let event):
      writer.unsigned(UInt64(call))
      writer.unsigned(UInt64(module))
      writer.choice(event, WireCases.lifecycle)
    case .event(let call, let module, let event):
      writer.unsigned(UInt64(call))
      writer.unsigned(UInt64(module))
      writer.event(event)
    case .message(let call, let module, let message, let origin):
      writer.unsigned(UInt64(call))
      writer.unsigned(UInt64(module))
      writer.message(message)
      writer.origin(origin)
    case .answer(let call, let answer):
      writer.unsigned(UInt64(call))
      answer.encode(&writer)
    case .woke(let sleep, let cancelled):
      writer.unsigned(UInt64(sleep))
      writer.bool(cancelled)
    case .done(let call):
      writer.unsigned(UInt64(call))
    case .built(let call, let roles, let receives, let restoreFailure):
      writer.unsigned(UInt64(call))
      writer.roles(roles)
      writer.bool(receives)
      writer.optionalString(restoreFailure)
    case .buildFailed(let call, let message):
      writer.unsigned(UInt64(call))
      writer.string(message)
    case .draw(let module, let tree):
      writer.unsigned(UInt64(module))
      writer.node(tree)
    case .request(let module, let request):
      writer.unsigned(UInt64(module))
      request.encode(&writer)
    case .service(let call, let module, let service):
      writer.unsigned(UInt64(call))
      writer.unsigned(UInt64(module))
      service.encode(&writer)
    case .workStarted(let module, let work, let name):
      writer.unsigned(UInt64(module))
      writer.unsigned(UInt64(work))
      writer.string(name)
    case .workEnded(let work, let outcome):
      writer.unsigned(UInt64(work))
      switch outcome {
      case .finished: writer.byte(0)
      case .failed(let error):
        writer.byte(1)
        writer.string(error)
      case .cancelled: writer.byte(2)
      }
    case .sleep(let work, let sleep, let seconds, let waiting):
      writer.unsigned(UInt64(work))
      writer.unsigned(UInt64(sleep))
      writer.double(seconds)
      writer.bool(waiting)
    case .cancelSleep(let sleep):
      writer.unsigned(UInt64(sleep))
    case .leaked(let module, let roles):
      writer.unsigned(UInt64(module))
      writer.roles(roles)
    case .restorationState(let module, let state, let failure):
      writer.unsigned(UInt64(module))
      writer.optionalString(state)
      writer.optionalString(failure)
    case .mapped: break
    case .storeCopy(let store, let entries):
      writer.byte(store.rawValue)
      writer.fields(entries)
    case .storeChanged(let store, let key, let value):
      writer.byte(store.rawValue)
      writer.string(key)
      writer.optional(value) { $0.value($1) }
    }
  }

  private static func decodeFields(kind: UInt8, _ reader: inout WireReader) throws(WireError) -> WireMessage {
    switch kind {
    case 0:
      let version = try reader.int()
      let name = try reader.string()
      let sdkVersion = try reader.string()
      let contracts = try reader.array { (reader: inout WireReader) throws(WireError) in try reader.contract() }
      return .ready(version: version, name: name, sdkVersion: sdkVersion, contracts: contracts)
    case 1:
      return .refused(
        kind: try reader.string(),
        reasons: try reader.array { (reader: inout WireReader) throws(WireError) in try reader.string() })
    case 2:
      return .build(
        call: try reader.u32(), module: try reader.u32(), factory: try reader.int(), urn: try reader.string(),
        arguments: try reader.fields(),
        services: try reader.array { (reader: inout WireReader) throws(WireError) in try reader.string() },
        restoring: try reader.optionalString())
    case 3:
      return .lifecycle(
        call: try reader.u32(), module: try reader.u32(), try reader.choice(WireCases.lifecycle, "lifecycle event"))
    case 4: return .event(call: try reader.u32(), module: try reader.u32(), try reader.event())
    case 5:
      return .message(
        call: try reader.u32(), module: try reader.u32(),
        try reader.nested { (reader: inout WireReader) throws(WireError) in try reader.message() },
        try reader.origin())
    case 6: return .answer(call: try reader.u32(), try WireAnswer.decode(&reader))
    case 7: return .woke(sleep: try reader.u32(), cancelled: try reader.bool())
    case 8: return .done(call: try reader.u32())
    case 9:
      return .built(
        call: try reader.u32(), roles: try reader.roles(), receives: try reader.bool(),
        restoreFailure: try reader.optionalString())
    case 10: return .buildFailed(call: try reader.u32(), message: try reader.string())
    case 11: return .draw(module: try reader.u32(), try reader.node())
    case 12: return .request(module: try reader.u32(), try HostRequest.decode(&reader))
    case 13: return .service(call: try reader.u32(), module: try reader.u32(), try WireServiceCall.decode(&reader))
    case 14: return .workStarted(module: try reader.u32(), work: try reader.u32(), name: try reader.string())
    case 15:
      let work = try reader.u32()
      switch try reader.byte() {
      case 0: return .workEnded(work: work, .finished)
      case 1: return .workEnded(work: work, .failed(try reader.string()))
      case 2: return .workEnded(work: work, .cancelled)
      case let other: throw WireError("work outcome \(other) is not one this host knows")
      }
    case 16:
      return .sleep(
        work: try reader.u32(), sleep: try reader.u32(), seconds: try reader.double(), waiting: try reader.bool())
    case 17: return .cancelSleep(sleep: try reader.u32())
    case 18: return .leaked(module: try reader.u32(), roles: try reader.roles())
    case 19:
      return .restorationState(
        module: try reader.u32(), state: try reader.optionalString(), failure: try reader.optionalString())
    case 20: return .mapped
    case 21: return .storeCopy(try reader.store(), try reader.fields())
    case 22:
      return .storeChanged(
        try reader.store(), key: try reader.string(),
        try reader.optional { (reader: inout WireReader) throws(WireError) in try reader.value() })
    default: throw WireError("message kind \(kind) is not one this host knows")
    }
  }
}

extension HostRequest {
  fileprivate func encode(_ writer: inout WireWriter) {
    switch self {
    case .push(let urn):
      writer.byte(0)
      writer.string(urn)
    case .present(let urn):
      writer.byte(1)
      writer.string(urn)
    case .replace(let urn):
      writer.byte(2)
      writer.string(urn)
    case .pop: writer.byte(3)
    case .popToRoot: writer.byte(4)
    case .dismiss: writer.byte(5)
    case .embed(let urn, let slot):
      writer.byte(6)
      writer.string(urn)
      writer.string(slot)
    case .removeChildren(let slot):
      writer.byte(7)
      writer.string(slot)
    case .showChild(let index, let slot):
      writer.byte(8)
      writer.int(index)
      writer.string(slot)
    case .emit(let message):
      writer.byte(9)
      writer.message(message)
    case .send(let message, let slot):
      writer.byte(10)
      writer.message(message)
      writer.string(slot)
    @unknown default: fatalError("\(self) has no wire encoding")
    }
  }

  fileprivate static func decode(_ reader: inout WireReader) throws(WireError) -> HostRequest {
    switch try reader.byte() {
    case 0: return .push(try reader.string())
    case 1: return .present(try reader.string())
    case 2: return .replace(try reader.string())
    case 3: return .pop
    case 4: return .popToRoot
    case 5: return .dismiss
    case 6: return .embed(try reader.string(), slot: try reader.string())
    case 7: return .removeChildren(slot: try reader.string())
    case 8: return .showChild(try reader.int(), slot: try reader.string())
    case 9: return .emit(try reader.message())
    case 10: return .send(try reader.message(), slot: try reader.string())
    case let other: throw WireError("router request \(other) is not one this host knows")
    }
  }
}

extension WireServiceCall {
  fileprivate func encode(_ writer: inout WireWriter) {
    switch self {
    case .storageValue(let key):
      writer.byte(0)
      writer.string(key)
    case .storageSet(let key, let value):
      writer.byte(1)
      writer.string(key)
      writer.optionalString(value)
    case .storageKeys: writer.byte(2)
    case .settingValue(let key):
      writer.byte(3)
      writer.string(key)
    case .settingSet(let key, let value):
      writer.byte(4)
      writer.string(key)
      writer.optional(value) { $0.value($1) }
    case .log(let level, let text):
      writer.byte(5)
      writer.choice(level, WireCases.levels)
      writer.string(text)
    case .notice(let text, let tone):
      writer.byte(6)
      writer.string(text)
      writer.tone(tone)
    case .alert(let title, let message):
      writer.byte(7)
      writer.string(title)
      writer.string(message)
    case .now: writer.byte(8)
    }
  }

  fileprivate static func decode(_ reader: inout WireReader) throws(WireError) -> WireServiceCall {
    switch try reader.byte() {
    case 0: return .storageValue(key: try reader.string())
    case 1:
      return .storageSet(
        key: try reader.string(),
        value: try reader.optionalString())
    case 2: return .storageKeys
    case 3: return .settingValue(key: try reader.string())
    case 4:
      return .settingSet(
        key: try reader.string(),
        value: try reader.optional { (reader: inout WireReader) throws(WireError) in try reader.value() })
    case 5: return .log(try reader.choice(WireCases.levels, "log level"), try reader.string())
    case 6: return .notice(try reader.string(), try reader.tone())
    case 7: return .alert(title: try reader.string(), message: try reader.string())
    case 8: return .now
    case let other: throw WireError("service call \(other) is not one this host knows")
    }
  }
}

extension WireAnswer {
  fileprivate func encode(_ writer: inout WireWriter) {
    switch self {
    case .none: writer.byte(0)
    case .string(let text):
      writer.byte(1)
      writer.optionalString(text)
    case .strings(let texts):
      writer.byte(2)
      writer.array(texts) { $0.string($1) }
    case .value(let value):
      writer.byte(3)
      writer.optional(value) { $0.value($1) }
    case .number(let number):
      writer.byte(4)
      writer.double(number)
    case .failed(let message):
      writer.byte(5)
      writer.string(message)
    }
  }

  fileprivate static func decode(_ reader: inout WireReader) throws(WireError) -> WireAnswer {
    switch try reader.byte() {
    case 0: return .none
    case 1: return .string(try reader.optionalString())
    case 2: return .strings(try reader.array { (reader: inout WireReader) throws(WireError) in try reader.string() })
    case 3: return .value(try reader.optional { (reader: inout WireReader) throws(WireError) in try reader.value() })
    case 4: return .number(try reader.double())
    case 5: return .failed(try reader.string())
    case let other: throw WireError("answer kind \(other) is not one this host knows")
    }
  }
}

extension WireReader {
  fileprivate mutating func store() throws(WireError) -> WireStore {
    let raw = try byte()
    guard let store = WireStore(rawValue: raw) else { throw WireError("store \(raw) is not one this host knows") }
    return store
  }
}
