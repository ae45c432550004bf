/// The output pipes of exited processes that something they left running still holds open
/// (`server &`, a daemon detached with `setsid`), so that the end of a run can read them a
/// last time and close them rather than wait for them.
///
/// A process is listed only while such a pipe is open: one whose pipes reached end of file
/// when it exited, the common case, never is.
public final class LeftoverOutput {
  /// In the order their processes exited.
  private var watches: [ProcessWatch] = []

  public init() {}

  /// Whether no pipe of an exited process is open.
  public var isEmpty: Bool { watches.isEmpty }

  func add(_ watch: ProcessWatch) {
    watches.append(watch)
  }

  func remove(_ watch: ProcessWatch) {
    watches.removeAll { $0 === watch }
  }

  /// Reads what each pipe holds now, whoever still writes to it, delivers it (with a last
  /// partial line) to its process's output handler, and closes it.
  public func readLastAndClose() {
    let watches = self.watches
    self.watches = []
    for watch in watches { watch.readLastAndClose() }
  }
}
