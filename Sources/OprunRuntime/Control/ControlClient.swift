import Glibc
import OprunCore

/// One connection to a run's control channel, from the client's side (`oprun ctl`): one
/// request, its answer line, and for `watch` the stream of lines after it.
///
/// Blocking, with a time limit on everything but a watch stream (a run can be quiet for
/// hours): a run that is stopped (Ctrl-Z) or wedged makes `ctl` fail rather than hang.
public final class ControlClient {
  /// Seconds to connect, send the request and read the answer line: 10.
  public static let answerTimeout: Double = 10
  /// The longest line read: 256 MiB, far above the status of the largest run.
  static let maximumLine = 256 << 20

  private let fd: Int32
  /// Bytes received and not yet handed out as lines.
  private var buffer: [UInt8] = []
  private var bufferStart = 0
  private var isAtEnd = false

  private init(fd: Int32) {
    self.fd = fd
  }

  deinit { close(fd) }

  /// Why a request got no answer.
  public enum Failure: Error, Equatable, CustomStringConvertible {
    /// Nobody listens at the socket any more (the run ended, or was killed).
    case gone
    /// The run closed the connection without answering: a refused peer, or a run ending.
    case closedWithoutAnswer
    case timedOut
    case malformedAnswer(String)
    case system(String)

    public var description: String {
      switch self {
      case .gone: "the run has ended"
      case .closedWithoutAnswer: "the run closed the connection without answering"
      case .timedOut: "the run did not answer within \(Int(ControlClient.answerTimeout)) s"
      case .malformedAnswer(let problem): "the run's answer is not understood: \(problem)"
      case .system(let problem): problem
      }
    }
  }

  /// Connects to `path`, waiting while the run's backlog is full, up to `deadline`.
  public static func connect(_ path: String, deadline: Double = now() + answerTimeout) -> Result<
    ControlClient, Failure
  > {
    while true {
      switch UnixSocket.connect(path, nonblocking: true) {
      case .connected(let fd): return .success(ControlClient(fd: fd))
      case .stale, .missing: return .failure(.gone)
      case .failed(EAGAIN) where now() < deadline: usleep(10_000)
      case .failed(EAGAIN): return .failure(.timedOut)
      case .failed(let code): return .failure(.system("cannot connect to '\(path)': \(errorMessage(code))"))
      }
    }
  }

  /// Sends the request line of `command` and `args`, then reads the answer line.
  public func request(_ command: String, _ args: [String], deadline: Double = now() + answerTimeout) -> Result<
    ControlClientAnswer, Failure
  > {
    if let failure = send(ControlWire.requestLine(command: command, args: args), deadline: deadline) {
      return .failure(failure)
    }
    switch nextLine(deadline: deadline) {
    case .failure(let failure): return .failure(failure)
    case .success(nil): return .failure(.closedWithoutAnswer)
    case .success(let line?):
      switch JSONValue.parse(line) {
      case .failure(let error): return .failure(.malformedAnswer("\(error)"))
      case .success(let value):
        guard let answer = ControlClientAnswer(value) else { return .failure(.malformedAnswer("no 'ok'")) }
        return .success(answer)
      }
    }
  }

  /// Whether a whole line has been received and not handed out: ``nextLine(deadline:)``
  /// returns it without waiting.
  public var hasLineWaiting: Bool { buffer[bufferStart...].contains(UInt8(ascii: "\n")) }

  /// The next line the run sends (without its newline), nil at the end of the stream;
  /// waits as long as it takes unless `deadline` is given.
  public func nextLine(deadline: Double? = nil) -> Result<[UInt8]?, Failure> {
    while true {
      if let newline = buffer[bufferStart...].firstIndex(of: UInt8(ascii: "\n")) {
        let line = Array(buffer[bufferStart..<newline])
        bufferStart = newline + 1
        if bufferStart > 65_536, bufferStart * 2 > buffer.count {
          buffer.removeSubrange(..<bufferStart)
          bufferStart = 0
        }
        return .success(line)
      }
      if isAtEnd { return .success(nil) }
      guard buffer.count - bufferStart <= Self.maximumLine else {
        return .failure(.malformedAnswer("a line longer than \(Self.maximumLine >> 20) MiB"))
      }
      if let failure = wait(for: Int16(POLLIN), deadline: deadline) { return .failure(failure) }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count > 0 {
        buffer += chunk[..<count]
      } else if count == 0 || errno == ECONNRESET {
        isAtEnd = true
      } else if errno != EAGAIN && errno != EINTR {
        return .failure(.system("cannot read from the run: \(errorMessage(errno))"))
      }
    }
  }

  private func send(_ bytes: [UInt8], deadline: Double) -> Failure? {
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if count > 0 {
        sent += count
      } else if errno == EAGAIN {
        if let failure = wait(for: Int16(POLLOUT), deadline: deadline) { return failure }
      } else if errno == EPIPE || errno == ECONNRESET {
        return .closedWithoutAnswer
      } else if errno != EINTR {
        return .system("cannot send to the run: \(errorMessage(errno))")
      }
    }
    return nil
  }

  private func wait(for events: Int16, deadline: Double?) -> Failure? {
    while true {
      let milliseconds = deadline.map { Int32(max(0, min(($0 - Self.now()) * 1000, 3_600_000)).rounded(.up)) } ?? -1
      var request = pollfd(fd: fd, events: events, revents: 0)
      let ready = poll(&request, 1, milliseconds)
      if ready > 0 { return nil }
      if ready == 0 { return .timedOut }
      if errno != EINTR { return .system("poll: \(errorMessage(errno))") }
    }
  }

  public static func now() -> Double { MonotonicClock.now() }
}

/// An answer line, read: `ok`, `error`, and the command's data (every other member, in order).
public struct ControlClientAnswer: Sendable {
  public var ok: Bool
  public var error: String?
  public var data: [(key: String, value: JSONValue)]

  init?(_ value: JSONValue) {
    guard let members = value.objectValue, let ok = value["ok"]?.boolValue else { return nil }
    self.ok = ok
    error = value["error"]?.stringValue
    data = members.filter { $0.key != "ok" && $0.key != "error" }
  }

  /// The data as one object: what `--json` prints.
  public var dataObject: JSONValue { .object(data) }
}
