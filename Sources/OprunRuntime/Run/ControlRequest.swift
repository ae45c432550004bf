/// A request from the control channel (`oprun ctl`, SPEC §8), with the peer that sent it.
public struct ControlRequest: Sendable, Equatable {
  /// `status`, `cancel`, `cancel-all`, `suspend`, `resume`, `limit`, `priority`, `pause`,
  /// `continue`, `watch`.
  public var command: String
  /// As given: job names, queue names, numbers, priority words.
  public var args: [String]
  /// Who sent it (SO_PEERCRED).
  public var peerUID: UInt32
  public var peerPID: Int32

  public init(command: String, args: [String], peerUID: UInt32, peerPID: Int32) {
    self.command = command
    self.args = args
    self.peerUID = peerUID
    self.peerPID = peerPID
  }
}

/// The driver's answer to a ``ControlRequest``.
public struct ControlAnswer: Sendable, Equatable {
  public var ok: Bool
  /// Why the run refused the request, for the user; nil when `ok`.
  public var error: String?
  /// The command's data: members of the answer object, already encoded as JSON
  /// (`"run":{…},"queues":[…]`), or empty.
  public var data: [UInt8]

  public init(ok: Bool, error: String? = nil, data: [UInt8] = []) {
    self.ok = ok
    self.error = error
    self.data = data
  }

  public static func refused(_ error: String) -> ControlAnswer { ControlAnswer(ok: false, error: error) }
}

/// Where the answer to a control request goes: called once, on the driver's thread, when
/// the request's step is taken — after its `control` event and before the transitions it
/// causes are delivered.
public final class ControlReply: @unchecked Sendable, Equatable {
  private let deliver: (ControlAnswer) -> Void

  public init(_ deliver: @escaping (ControlAnswer) -> Void) {
    self.deliver = deliver
  }

  public func send(_ answer: ControlAnswer) { deliver(answer) }

  public static func == (a: ControlReply, b: ControlReply) -> Bool { a === b }
}
