import OprunCore

/// Snapshots taken off the event loop's thread and delivered on it: the run asks, goes on
/// serving its jobs, signals and control requests, and gets each snapshot in a callback.
public final class FileSnapshotDelivery {
  private let hasher: FileHasher
  private let delivery: LoopDelivery<FileSnapshot>

  /// Delivery on `loop`, which must be run on the calling thread.
  public init(hasher: FileHasher, loop: EventLoop) throws(SystemError) {
    self.hasher = hasher
    delivery = try LoopDelivery(loop: loop)
  }

  /// Whether some snapshot asked for has not been delivered yet.
  public var isWaiting: Bool { delivery.isWaiting }

  /// Takes the snapshot of `request` on the hashing threads, then calls `deliver` with it
  /// on the loop's thread, from `run(until:)`.
  public func snapshot(_ request: FileSetRequest, then deliver: @escaping (FileSnapshot) -> Void) {
    let ticket = delivery.expect(deliver)
    let hasher = hasher
    if let pending = hasher.claimPrefetched(request) {
      pending.whenMade { ticket.post($0) }
      return
    }
    hasher.pool.submit { buffer in
      ticket.post(hasher.snapshot(request, buffer: buffer))
    }
  }

  /// Drops the snapshot of `request` begun before the run asked for it, if any.
  public func forgetEarlierLook(at request: FileSetRequest) {
    _ = hasher.claimPrefetched(request)
  }

  /// Stops watching the loop; snapshots still under way are dropped when they finish.
  public func close() {
    delivery.close()
  }
}
