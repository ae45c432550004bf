import COprunSystem

/// The scheduler's slice for the thread that reaps and starts jobs.
///
/// With the default slice (1.4 ms here), oprun woken by a job's exit often waited on its CPU
/// behind another job's whole run while the other CPU was idle: under the EEVDF scheduler
/// (Linux 6.12 and later) a woken thread preempts the running one when its deadline comes
/// first, and a shorter slice brings its deadline forward. Runs of thousands of short jobs
/// settled, more than half of them, into one job at a time (docs/PERFORMANCE.md, "A short
/// slice for the loop"). Jobs keep the default slice.
enum LoopSlice {
  /// The shortest slice the kernel grants.
  static let nanoseconds: UInt64 = 100_000

  /// Asks for the short slice for the calling thread; a refusal leaves the default one.
  static func requestForThisThread() {
    oprun_request_thread_slice(CUnsignedLongLong(nanoseconds))
  }
}
