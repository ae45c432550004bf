/// Finds the dependency cycles of a graph, each once, with its path.
///
/// Kahn's algorithm peels away every job that is not stuck behind a cycle (linear); only
/// if some remain are strongly connected components found (Tarjan, with an explicit stack),
/// and in each component a shortest cycle through its earliest job not yet in a listed
/// cycle (breadth-first), until every job of the component is in a listed cycle.
struct DependencyCycles {
  /// At most this many cycles are listed per component: a dense tangle has exponentially many.
  static let cyclesPerComponent = 10

  /// One cycle: `jobs[0]` is its earliest job in manifest order, each job depends on the next,
  /// and the last depends on the first.
  struct Cycle: Equatable {
    var jobs: [JobID]
  }

  let dependencies: [[JobID]]
  let dependents: [[JobID]]

  /// Every cycle listed, ordered by first job; and for each component with more cycles
  /// than listed, its first job that is in no listed cycle.
  func find() -> (cycles: [Cycle], unlisted: [JobID]) {
    let stuck = jobsBehindCycles()
    guard stuck.contains(true) else { return ([], []) }
    var cycles: [Cycle] = []
    var unlisted: [JobID] = []
    var search = CycleSearch(count: dependencies.count)
    for component in stronglyConnectedComponents(among: stuck) where component.count > 1 {
      let found = search.cycles(in: component, dependencies: dependencies, limit: Self.cyclesPerComponent)
      cycles += found.cycles
      unlisted += found.unlisted.map { [$0] } ?? []
    }
    return (cycles.sorted { $0.jobs[0] < $1.jobs[0] }, unlisted)
  }

  /// Kahn's algorithm: true for every job that never becomes free of unfinished dependencies.
  private func jobsBehindCycles() -> [Bool] {
    var waitingFor = dependencies.map(\.count)
    var ready = waitingFor.indices.filter { waitingFor[$0] == 0 }
    var stuck = [Bool](repeating: true, count: dependencies.count)
    while let job = ready.popLast() {
      stuck[job] = false
      for dependent in dependents[job] {
        waitingFor[dependent] -= 1
        if waitingFor[dependent] == 0 { ready.append(dependent) }
      }
    }
    return stuck
  }

  // Maps Tarjan's algorithm without recursion: `frames` is the call stack, each frame a job
  // and the index of its next dependency to visit; a job whose lowlink equals its index
  // closes a component, popped from `component`.
  private func stronglyConnectedComponents(among included: [Bool]) -> [[JobID]] {
    let count = dependencies.count
    var index = [Int](repeating: -1, count: count)
    var lowlink = [Int](repeating: 0, count: count)
    var onStack = [Bool](repeating: false, count: count)
    var component: [JobID] = []
    var frames: [(job: JobID, next: Int)] = []
    var components: [[JobID]] = []
    var counter = 0

    func enter(_ job: JobID) {
      index[job] = counter
      lowlink[job] = counter
      counter += 1
      component.append(job)
      onStack[job] = true
      frames.append((job, 0))
    }

    for root in 0..<count where included[root] && index[root] == -1 {
      enter(root)
      while let (job, next) = frames.last {
        if next < dependencies[job].count {
          frames[frames.count - 1].next += 1
          let dependency = dependencies[job][next]
          guard included[dependency] else { continue }
          if index[dependency] == -1 {
            enter(dependency)
          } else if onStack[dependency] {
            lowlink[job] = min(lowlink[job], index[dependency])
          }
          continue
        }
        frames.removeLast()
        if let caller = frames.last?.job { lowlink[caller] = min(lowlink[caller], lowlink[job]) }
        guard lowlink[job] == index[job] else { continue }
        var members: [JobID] = []
        while true {
          let member = component.removeLast()
          onStack[member] = false
          members.append(member)
          if member == job { break }
        }
        components.append(members.sorted())
      }
    }
    return components
  }
}

/// Breadth-first searches for shortest cycles inside one component, reusing its buffers.
private struct CycleSearch {
  private var parent: [JobID]
  private var visitedIn: [Int]
  private var componentOf: [Int]
  private var searches = 0
  private var components = 0

  init(count: Int) {
    parent = [JobID](repeating: -1, count: count)
    visitedIn = [Int](repeating: -1, count: count)
    componentOf = [Int](repeating: -1, count: count)
  }

  /// Cycles through the component's jobs in manifest order, each through a job no earlier
  /// cycle covers, until all are covered or `limit` is reached.
  mutating func cycles(in component: [JobID], dependencies: [[JobID]], limit: Int) -> (
    cycles: [DependencyCycles.Cycle], unlisted: JobID?
  ) {
    components += 1
    for job in component { componentOf[job] = components }
    var covered = Set<JobID>()
    var cycles: [DependencyCycles.Cycle] = []
    for start in component where !covered.contains(start) {
      guard cycles.count < limit else { return (cycles, start) }
      let path = shortestCycle(through: start, dependencies: dependencies)
      covered.formUnion(path)
      let first = path.indices.min { path[$0] < path[$1] }!
      cycles.append(DependencyCycles.Cycle(jobs: Array(path[first...] + path[..<first])))
    }
    return (cycles, nil)
  }

  /// `start`, then each job the previous one depends on, back to (not repeating) `start`.
  private mutating func shortestCycle(through start: JobID, dependencies: [[JobID]]) -> [JobID] {
    searches += 1
    var queue = [start]
    var head = 0
    visitedIn[start] = searches
    while head < queue.count {
      let job = queue[head]
      head += 1
      for dependency in dependencies[job] where componentOf[dependency] == components {
        if dependency == start { return path(to: job, from: start) }
        guard visitedIn[dependency] != searches else { continue }
        visitedIn[dependency] = searches
        parent[dependency] = job
        queue.append(dependency)
      }
    }
    preconditionFailure("a job in a strongly connected component lies on a cycle")
  }

  private func path(to end: JobID, from start: JobID) -> [JobID] {
    var path = [end]
    var job = end
    while job != start {
      job = parent[job]
      path.append(job)
    }
    return path.reversed()
  }
}
