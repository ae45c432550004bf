/// Something that watches a run: a reporter, the journal, the executor's own bookkeeping.
///
/// Events arrive synchronously, in the order they happened, on the thread that drives the
/// run. An observer never changes the run it observes, except the executor, which acts on
/// `cancelled` events for the jobs it runs.
public protocol RunObserver: AnyObject {
  func observe(_ event: RunEvent)
}
