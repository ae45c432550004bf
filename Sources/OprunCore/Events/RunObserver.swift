/// Something that watches a run: a reporter, the event stream, the journal.
///
/// Events arrive synchronously, in the order they happened, on the thread that drives the
/// run, one delivery at a time. An observer never changes the run it observes: what a run
/// does about an event is the run driver's decision, taken after every observer has seen it.
public protocol RunObserver: AnyObject {
  func observe(_ event: RunEvent)
}
