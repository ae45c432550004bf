import OprunCore

/// SplitMix64: a small, seedable generator, so that a failing scenario is reproduced
/// from the seed the property test reports.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }

  mutating func pick<T>(_ choices: [T]) -> T {
    choices[Int.random(in: 0..<choices.count, using: &self)]
  }
}

/// A random run: a DAG over a few queues, with random priorities, QoS, `run-if`, retries
/// and limits, and a failure policy.
struct RandomScenario {
  var graph: JobGraph
  var failurePolicy: FailurePolicy

  init(jobCount: Int, random: inout SeededGenerator) {
    let manifest = Manifest(path: "random.yaml", name: "main")
    let queueCount = Int.random(in: 1...4, using: &random)
    let queues = (0..<queueCount).map { index in
      QueueNode(
        name: index == 0 ? "main" : "q\(index)", maxConcurrent: Int.random(in: 1...4, using: &random),
        qos: random.chance(0.3) ? random.pick(QualityOfService.allCases) : nil)
    }
    var jobs: [JobNode] = []
    for id in 0..<jobCount {
      let dependencyCount = id == 0 ? 0 : Int.random(in: 0...min(id, 3), using: &random)
      let dependencies = Set((0..<dependencyCount).map { _ in Int.random(in: 0..<id, using: &random) }).sorted()
      let queue = Int.random(in: 0..<queueCount, using: &random)
      jobs.append(
        JobNode(
          id: id, name: "j\(id)", queue: queue, dependencies: dependencies,
          explicitPriority: random.chance(0.4) ? random.pick(Priority.allCases) : nil,
          qos: random.chance(0.4) ? random.pick(QualityOfService.allCases) : queues[queue].qos ?? .default,
          commands: Array(repeating: "true", count: Int.random(in: 1...3, using: &random)),
          runIf: random.chance(0.7) ? .success : random.pick([.always, .failure]),
          retries: random.chance(0.3) ? Int.random(in: 1...2, using: &random) : 0,
          location: SourceLocation(file: "random.yaml", line: id + 1, column: 1)))
    }
    graph = connected(JobGraph(manifest: manifest, queues: queues, jobs: jobs))
    failurePolicy = random.pick(FailurePolicy.allCases)
  }
}

extension RandomScenario {
  /// A random graph of `jobCount` jobs on one serial queue, every `run-if` `success`: a run of
  /// it where every job succeeds starts the jobs in the order of the graph's plan.
  static func serialGraph(jobCount: Int, random: inout SeededGenerator) -> JobGraph {
    var graph = RandomScenario(jobCount: jobCount, random: &random).graph
    graph.queues = [QueueNode(name: "main", maxConcurrent: 1)]
    for job in graph.jobs.indices {
      graph.jobs[job].queue = 0
      graph.jobs[job].runIf = .success
    }
    return graph
  }
}

extension QueueEngine {
  /// Starts and succeeds each job as the engine launches it, one at a time; the start order.
  func runEveryLaunchToSuccess() -> [JobID] {
    var order: [JobID] = []
    while let launch = nextLaunches().first {
      order.append(launch.job)
      didStart(launch.job)
      didFinish(launch.job, succeeded: true)
    }
    return order
  }
}
