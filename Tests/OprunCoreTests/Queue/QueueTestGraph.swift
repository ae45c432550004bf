import OprunCore

/// Builds a ``JobGraph`` from a compact description, one job or queue per line:
///
///     queue net max=2 qos=utility
///     fetch queue=net priority=high
///     build <- fetch commands=2
///     report <- build run-if=always retries=1
///
/// The main queue is `main` with max=4 unless a `queue main ...` line says otherwise. Job
/// keys: `priority`, `qos`, `queue`, `run-if`, `retries`, `commands` (a count), `timeout`,
/// `cpus`, `memory` (a size).
/// Dependents are filled in, as the graph builder does.
func makeGraph(_ text: String, name: String = "main") -> JobGraph {
  let manifest = Manifest(path: "jobs.yaml", name: name)
  var queues = [QueueNode(name: name, maxConcurrent: 4)]
  var jobs: [JobNode] = []
  var ids: [String: JobID] = [:]
  for (number, line) in text.split(separator: "\n").enumerated() {
    var words = line.split(separator: " ").map(String.init)
    guard let first = words.first else { continue }
    if first == "queue" {
      var queue = QueueNode(name: words[1], maxConcurrent: 4)
      for (key, value) in options(words.dropFirst(2)) {
        switch key {
        case "max": queue.maxConcurrent = Int(value)!
        case "qos": queue.qos = QualityOfService(rawValue: value)!
        default: fatalError("unknown queue key \(key)")
        }
      }
      if queue.name == name { queues[0] = queue } else { queues.append(queue) }
      continue
    }
    words.removeFirst()
    var dependencies: [JobID] = []
    if words.first == "<-" {
      dependencies = words[1].split(separator: ",").map { ids[String($0)]! }
      words.removeFirst(2)
    }
    var job = JobNode(
      id: jobs.count, name: first, queue: 0, dependencies: dependencies, commands: ["true"],
      location: SourceLocation(file: "jobs.yaml", line: number + 1, column: 1))
    var qos: QualityOfService?
    for (key, value) in options(words[...]) {
      switch key {
      case "priority": job.explicitPriority = Priority(word: value)!
      case "qos": qos = QualityOfService(rawValue: value)!
      case "queue": job.queue = queues.firstIndex { $0.name == value }!
      case "run-if": job.runIf = RunCondition(rawValue: value)!
      case "retries": job.retries = Int(value)!
      case "commands": job.commands = Array(repeating: "true", count: Int(value)!)
      case "timeout": job.timeout = Double(value)!
      case "interactive": job.interactive = value == "true"
      case "cpus": job.resources.cpus = Located(Int(value)!, at: job.location)
      case "memory": job.resources.memory = Located(ByteSize.bytes(value)!, at: job.location)
      default: fatalError("unknown job key \(key)")
      }
    }
    job.qos = qos ?? queues[job.queue].qos ?? .default
    ids[first] = job.id
    jobs.append(job)
  }
  return connected(JobGraph(manifest: manifest, queues: queues, jobs: jobs))
}

/// The graph with every job's `dependents` filled in from the dependencies, in manifest order.
func connected(_ graph: JobGraph) -> JobGraph {
  var graph = graph
  for index in graph.jobs.indices { graph.jobs[index].dependents = [] }
  for job in graph.jobs {
    for dependency in job.dependencies { graph.jobs[dependency].dependents.append(job.id) }
  }
  return graph
}

private func options(_ words: ArraySlice<String>) -> [(String, String)] {
  words.map { word in
    let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
    return (parts[0], parts[1])
  }
}
