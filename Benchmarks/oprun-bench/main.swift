// The queue engine driven by an instant fake executor, on graphs of three shapes.
//
//   oprun-bench                 every shape at 1,000, 10,000 and 100,000 jobs, each in its own process
//   oprun-bench SHAPE JOBS      one measurement (SHAPE: independent, chain, layered)
//
// Each measurement prints the time to build the graph, the best of three times for the engine
// to run it (every job pending → ready → executing → finished, every event delivered to an observer),
// and the process's peak resident memory (getrusage ru_maxrss). One process per measurement,
// so that each peak is that shape's own.

import Glibc
import OprunCore

enum Shape: String, CaseIterable {
  /// No dependencies at all.
  case independent
  /// Each job depends on the one before.
  case chain
  /// Layers of 100 jobs, each depending on 2 jobs of the layer before.
  case layered

  func dependencies(of job: Int) -> [Int] {
    switch self {
    case .independent:
      return []
    case .chain:
      return job == 0 ? [] : [job - 1]
    case .layered:
      let width = 100
      let (layer, index) = job.quotientAndRemainder(dividingBy: width)
      guard layer > 0 else { return [] }
      let previous = (layer - 1) * width
      return [previous + index, previous + (index + 1) % width].sorted()
    }
  }
}

func makeGraph(_ shape: Shape, jobs count: Int) -> JobGraph {
  let location = SourceLocation(file: "bench.yaml", line: 1, column: 1)
  var jobs = (0..<count).map { id in
    JobNode(
      id: id, name: "job\(id)", queue: 0, dependencies: shape.dependencies(of: id), commands: ["true"],
      location: location)
  }
  for job in 0..<count {
    for dependency in jobs[job].dependencies { jobs[dependency].dependents.append(job) }
  }
  return JobGraph(
    manifest: Manifest(path: "bench.yaml", name: "bench"), queues: [QueueNode(name: "bench", maxConcurrent: 4)],
    jobs: jobs)
}

/// Counts events, as the cheapest real observer would look at each one.
final class EventCounter: RunObserver {
  var transitions = 0
  func observe(_ event: RunEvent) {
    if case .transition = event.kind { transitions += 1 }
  }
}

/// Starts every launch at once and finishes it at once, until the run drains.
func runInstantly(_ graph: JobGraph) -> Int {
  let counter = EventCounter()
  let engine = QueueEngine(graph: graph, failurePolicy: .stop, clock: { 0 })
  engine.addObserver(counter)
  engine.start()
  while !engine.isDrained {
    var launches: [Launch] = []
    while let launch = engine.nextLaunch() { launches.append(launch) }
    precondition(!launches.isEmpty, "the run stalled")
    for launch in launches { engine.didStart(launch.job) }
    for launch in launches { engine.didFinish(launch.job, succeeded: true) }
  }
  precondition(engine.exitStatus() == 0 && counter.transitions == 3 * graph.jobs.count)
  return counter.transitions
}

func seconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func peakMemoryMB() -> Double {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
  return Double(usage.ru_maxrss) / 1024
}

func format(_ value: Double, _ decimals: Int) -> String {
  var scaled = (value * pow(10, Double(decimals))).rounded()
  if scaled == -0 { scaled = 0 }
  let text = String(Int(scaled))
  guard decimals > 0 else { return text }
  let padded = String(repeating: "0", count: max(0, decimals + 1 - text.count)) + text
  return padded.dropLast(decimals) + "." + padded.suffix(decimals)
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

func measure(_ shape: Shape, jobs: Int) {
  let start = seconds()
  let graph = makeGraph(shape, jobs: jobs)
  let built = seconds()
  // The best of three runs: the machine is shared, and the fastest run is the engine's own cost.
  var best = Double.infinity
  for _ in 0..<3 {
    let before = seconds()
    _ = runInstantly(graph)
    best = min(best, seconds() - before)
  }
  let perJob = best / Double(jobs) * 1e6
  print(
    shape.rawValue.padding(11) + pad(String(jobs), 8) + pad(format(built - start, 3), 10)
      + pad(format(best, 3), 11) + pad(format(perJob, 2), 9) + pad(format(peakMemoryMB(), 1), 10))
}

extension String {
  func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}

/// Runs this program again for one measurement and waits for it.
func measureInChild(_ shape: Shape, jobs: Int) {
  let arguments = ["oprun-bench", shape.rawValue, String(jobs)]
  var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, "/proc/self/exe", nil, nil, &argv, environ)
  precondition(spawned == 0, "posix_spawn failed: \(spawned)")
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  precondition(status == 0, "measurement \(shape) \(jobs) failed with status \(status)")
}

let arguments = CommandLine.arguments
if arguments.count == 3, let shape = Shape(rawValue: arguments[1]), let jobs = Int(arguments[2]), jobs > 0 {
  measure(shape, jobs: jobs)
} else if arguments.count == 1 {
  print("shape          jobs  graph(s)  engine(s)  µs/job  peak(MB)")
  fflush(nil)
  for shape in Shape.allCases {
    for jobs in [1_000, 10_000, 100_000] { measureInChild(shape, jobs: jobs) }
  }
} else {
  let usage = "usage: oprun-bench [independent|chain|layered JOBS]\n"
  _ = usage.withCString { write(2, $0, strlen($0)) }
  exit(2)
}
