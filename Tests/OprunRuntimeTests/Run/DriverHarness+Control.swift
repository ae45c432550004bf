import OprunCore

@testable import OprunRuntime

/// A control request's answer, and when it came.
struct ControlExchange {
  var answer: ControlAnswer
  /// How many events had been delivered when the answer was sent.
  var eventsBeforeAnswer: Int
  /// How many times the reply was sent (once, always).
  var replies: Int

  var ok: Bool { answer.ok }
  var error: String? { answer.error }
  var data: String { String(decoding: answer.data, as: UTF8.self) }
}

extension DriverHarness {
  static let peerUID: UInt32 = 1000
  static let peerPID: Int32 = 4242

  /// Sends `command args…` as `oprun ctl` would, from uid 1000 (pid 4242), and returns the answer.
  @discardableResult
  func control(_ command: String, _ args: String...) -> ControlExchange {
    control(command, args: args)
  }

  @discardableResult
  func control(_ command: String, args: [String]) -> ControlExchange {
    var exchange: ControlExchange?
    let reply = ControlReply { [events] answer in
      if exchange == nil {
        exchange = ControlExchange(answer: answer, eventsBeforeAnswer: events.all.count, replies: 1)
      } else {
        exchange?.replies += 1
      }
    }
    let request = ControlRequest(command: command, args: args, peerUID: Self.peerUID, peerPID: Self.peerPID)
    driver.apply(.control(request, reply: reply))
    guard let exchange else { fatalError("control request \(command) \(args) was not answered") }
    return exchange
  }

  /// The events delivered after the `index`th, as lines.
  func lines(after index: Int) -> [String] {
    events.all.dropFirst(index).compactMap { events.line(for: $0.kind) }
  }
}
