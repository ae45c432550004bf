import Testing

@testable import OprunCore

/// `oprun jobs.yaml JOB...`: a run restricted to named jobs and their dependencies.
@Suite struct TargetTests {
  let graph = makeGraph(
    "queue net\nfetch queue=net\nlint\nbuild <- fetch\ntest <- build\ndocs <- fetch\nrelease <- test,docs")

  @Test func namedJobKeepsItsTransitiveDependencies() throws {
    let restricted = try graph.restricted(to: ["test"])
    #expect(restricted.jobs.map(\.name) == ["fetch", "build", "test"])
  }

  @Test func idsAreDenseInManifestOrder() throws {
    let restricted = try graph.restricted(to: ["docs", "test"])
    #expect(restricted.jobs.map(\.name) == ["fetch", "build", "test", "docs"])
    #expect(restricted.jobs.map(\.id) == [0, 1, 2, 3])
    #expect(restricted.jobs[2].dependencies == [1])
    #expect(restricted.jobs[0].dependents == [1, 3])
  }

  @Test func dependentsOutsideTheSelectionAreDropped() throws {
    let restricted = try graph.restricted(to: ["build"])
    #expect(restricted.jobs.map(\.name) == ["fetch", "build"])
    #expect(restricted.jobs[0].dependents == [1])
    #expect(restricted.jobs[1].dependents.isEmpty)
  }

  @Test func queuesKeepTheirIds() throws {
    let restricted = try graph.restricted(to: ["fetch"])
    #expect(restricted.queues == graph.queues)
    #expect(restricted.jobs[0].queue == graph.queue(named: "net"))
  }

  @Test func unknownNameIsAnErrorWithASuggestion() {
    #expect(throws: TargetError(name: "biuld", suggestion: "build")) {
      try graph.restricted(to: ["lint", "biuld"])
    }
    let error = TargetError(name: "biuld", suggestion: "build")
    #expect(error.description == "unknown job 'biuld' (did you mean 'build'?)")
  }

  @Test func unknownNameFarFromEveryJobListsTheJobsInstead() {
    let listing = "the jobs are fetch, lint, build, test, docs and release"
    #expect(throws: TargetError(name: "kubernetes", suggestion: nil, jobListing: listing)) {
      try graph.restricted(to: ["kubernetes"])
    }
    let error = TargetError(name: "x", suggestion: nil, jobListing: "the jobs are a and b")
    #expect(error.problem == "unknown job 'x'")
    #expect(error.description == "unknown job 'x'; the jobs are a and b")
  }

  @Test func restrictedGraphRunsOnlyTheSelection() throws {
    let restricted = try graph.restricted(to: ["docs"])
    let engine = QueueEngine(graph: restricted, failurePolicy: .stop, clock: { 0 })
    engine.start()
    var started: [String] = []
    while !engine.isDrained {
      for launch in engine.nextLaunches() {
        started.append(restricted.jobs[launch.job].name)
        engine.didStart(launch.job)
        engine.didFinish(launch.job, succeeded: true)
      }
    }
    #expect(started == ["fetch", "docs"])
  }
}
