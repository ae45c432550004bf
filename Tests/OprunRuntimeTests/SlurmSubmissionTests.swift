import OprunCore
import Testing

@testable import OprunRuntime

/// What `--backend slurm` hands `sbatch`, and how it reads `squeue`, without a cluster.
@Suite struct SlurmSubmissionTests {
  private func plan(_ manifest: String, options: SlurmOptions = SlurmOptions()) -> (SlurmBackend, [PlannedJob]) {
    let run = ClusterHarness(manifest)
    let backend = SlurmBackend(
      loop: EventLoop(),
      local: LocalBackend(loop: EventLoop(), framing: .jobLines, environment: SpawnEnvironment([]), grace: 1),
      options: options.over(run.graph.manifest.slurm), runID: "R", outputFolder: "/out", environment: [])
    return (backend, run.driver.plannedJobs())
  }

  @Test func runIfBecomesTheDependencyTypeAndTheBandTheNiceValue() {
    let (backend, jobs) = plan(
      """
      jobs:
        a: {command: build, priority: veryHigh}
        b: {command: test, dependencies: [a]}
        c: {command: clean, dependencies: [a, b], run-if: always, priority: low}
        d: {command: report, dependencies: [a, b], run-if: failure, timeout: 90s}
      """)
    for (index, job) in jobs.enumerated() {
      backend.jobs.append(
        .init(
          job: job.job.id, name: job.job.name, slurmID: Int32(10 + index), work: job.order.work, commands: 1,
          outputPath: ""))
      backend.indexByJob[job.job.id] = index
    }
    let arguments = jobs.map { backend.sbatchArguments($0, outputPath: "/out/x.out") }
    #expect(arguments[0].contains("--nice=0"))
    #expect(!arguments[0].contains { $0.hasPrefix("--dependency") })
    #expect(arguments[1].contains("--dependency=afterok:10") && arguments[1].contains("--nice=80"))
    #expect(arguments[2].contains("--dependency=afterany:10:11") && arguments[2].contains("--nice=120"))
    #expect(arguments[3].contains("--dependency=afternotok:10?afternotok:11"))
    #expect(arguments[3].contains("--time=2"))
    #expect(arguments[1].contains("--job-name=oprun:R:b"))
    #expect(!arguments[1].contains { $0.hasPrefix("--qos") || $0.hasPrefix("--partition") })
  }

  @Test func theManifestsSlurmSectionIsUsedAndFlagsWinOverIt() {
    var flags = SlurmOptions()
    flags.partition = "fast"
    flags.extraArguments = ["--mem=1G"]
    let (backend, jobs) = plan(
      """
      slurm:
        partition: debug
        account: lab
        qos: {background: low}
        sbatch-args: [--exclusive]
      jobs:
        a: {command: build, qos: background}
        b: {command: test}
      """, options: flags)
    let a = backend.sbatchArguments(jobs[0], outputPath: "/out/a.out")
    let b = backend.sbatchArguments(jobs[1], outputPath: "/out/b.out")
    #expect(a.contains("--partition=fast") && a.contains("--account=lab") && a.contains("--qos=low"))
    #expect(!b.contains { $0.hasPrefix("--qos") })
    #expect(Array(a[2...3]) == ["--exclusive", "--mem=1G"])
  }

  @Test func declaredResourcesBecomeCPUsPerTaskAndMemoryInMebibytes() {
    let (backend, jobs) = plan(
      """
      jobs:
        a: {command: build, resources: {cpus: 4, memory: 1.5G}}
        b: {command: test, resources: {memory: 1000K}}
        c: {command: lint}
      """)
    let arguments = jobs.map { backend.sbatchArguments($0, outputPath: "/out/x.out") }
    #expect(arguments[0].contains("--cpus-per-task=4") && arguments[0].contains("--mem=1536M"))
    #expect(arguments[1].contains("--mem=1M") && !arguments[1].contains { $0.hasPrefix("--cpus-per-task") })
    #expect(!arguments[2].contains { $0.hasPrefix("--mem") || $0.hasPrefix("--cpus-per-task") })
  }

  @Test func severalCommandsRunAtOnceAndTheFirstFailureDecides() {
    let (_, jobs) = plan("jobs: {a: {commands: ['exit 0', 'exit 4'], env: {X: \"it's\"}}}")
    let script = SlurmBackend.script(of: jobs[0].order)
    #expect(script.contains("export X='it'\\''s'"))
    #expect(script.contains("(\nexit 0\n) & oprun_0=$!") && script.contains("(\nexit 4\n) & oprun_1=$!"))
    #expect(script.hasSuffix("exit $oprun_status"))
  }

  @Test func squeueLinesGiveStateReasonAndHowTheScriptEnded() {
    let failed = SqueueLine("12|FAILED|NonZeroExitCode|768|")
    #expect(failed?.id == 12 && failed?.state == "FAILED")
    #expect(failed?.termination == .exited(3))
    #expect(SqueueLine("13|CANCELLED|None|15|")?.termination == .signalled(15))
    #expect(SqueueLine("14|TIMEOUT|TimeLimit|0|")?.termination == .signalled(15))
    #expect(SqueueLine("15|COMPLETED|None|0|")?.termination == .exited(0))
    #expect(SqueueLine("16|CANCELLED|DependencyNeverSatisfied|0|")?.reason == "DependencyNeverSatisfied")
    #expect(SqueueLine("garbage") == nil)
    #expect(SlurmBackend.jobID("42\n") == 42 && SlurmBackend.jobID("43;cluster\n") == 43)
  }

  @Test func aMatrixJobsInstancesWithTheSameDependenciesGoAsOneArrayThrottledByTheirQueue() {
    let (_, jobs) = plan(
      """
      max-concurrent: 2
      jobs:
        setup: {command: prepare}
        build:
          matrix: {v: ["1", "2", "3"]}
          command: make V=${{ matrix.v }}
          dependencies: [setup]
        test:
          matrix: {v: ["1", "2", "3"], db: [x, y]}
          command: test ${{ matrix.v }} ${{ matrix.db }}
          dependencies: ["build[${{ matrix.v }}]"]
        report: {command: report, dependencies: [test]}
      """)
    let submissions = SlurmArray.submissions(of: jobs, limits: [2])
    #expect(
      submissions.map { $0.tasks.map(\.job.name) } == [
        ["setup"], ["build[1]", "build[2]", "build[3]"], ["test[1,x]", "test[1,y]"], ["test[2,x]", "test[2,y]"],
        ["test[3,x]", "test[3,y]"], ["report"],
      ])
    #expect(submissions[1].arraySpec == "0-2%2")
    #expect(submissions[3].arraySpec == "2-3", "no throttle when the queue's limit is not below the tasks")
    #expect(SlurmArray.submissions(of: jobs, limits: [nil])[1].arraySpec == "0-2")
  }

  @Test func resumedInstancesLeaveTheirIndicesOutOfTheArray() {
    let (_, jobs) = plan("jobs: {a: {matrix: {n: ['0', '1', '2', '3', '4', '5']}, command: 'run ${{ matrix.n }}'}}")
    let remaining = jobs.filter { ![0, 4].contains($0.instanceIndex) }
    let submissions = SlurmArray.submissions(of: remaining, limits: [nil])
    #expect(submissions.count == 1 && submissions[0].arraySpec == "1-3,5")
  }

  @Test func eachTaskOfTheArrayScriptRunsItsInstancesOwnScript() {
    let (_, jobs) = plan(
      """
      jobs:
        a:
          matrix: {n: ["1", "2"]}
          cwd: dir-${{ matrix.n }}
          env: {N: "it's ${{ matrix.n }}"}
          command: echo $N
      """)
    let array = SlurmArray.submissions(of: jobs, limits: [nil])[0]
    let script = array.script(changingFolder: true)
    #expect(script.hasPrefix("#!/bin/sh\ncase $SLURM_ARRAY_TASK_ID in\n"))
    let second =
      "1) cd " + SlurmBackend.shellQuoted(jobs[1].order.workingDirectory) + " && eval "
      + SlurmBackend.shellQuoted(SlurmBackend.script(of: jobs[1].order)) + " ;;"
    #expect(script.contains(second), "\(script)")
    #expect(!array.script(changingFolder: false).contains(" cd "))
  }

  @Test func anArraysSbatchArgumentsAreItsFirstTasksUnderTheMatrixJobsName() {
    let (backend, jobs) = plan("jobs: {a: {matrix: {n: ['1', '2']}, command: run, timeout: 90s}}")
    let array = SlurmArray.submissions(of: jobs, limits: [nil])[0]
    let arguments = backend.sbatchArguments(
      array, script: "/out/0-a.sbatch", outputPattern: "/out/0-a.%a.out", folder: ["/work"])
    #expect(arguments.contains("--job-name=oprun:R:a") && arguments.contains("--output=/out/0-a.%a.out"))
    #expect(arguments.contains("--chdir=/work") && arguments.contains("--time=2"))
    #expect(!arguments.contains { $0.hasPrefix("--wrap") })
    #expect(Array(arguments.suffix(2)) == ["--array=0-1", "/out/0-a.sbatch"])
  }

  @Test func aDependencyOnEveryTaskOfAnArrayNamesTheArrayOnce() {
    let (backend, jobs) = plan(
      """
      jobs:
        a: {matrix: {n: ['1', '2']}, command: run}
        all: {command: x, dependencies: [a]}
        one: {command: x, dependencies: ['a[2]']}
        any-failed: {command: x, dependencies: [a], run-if: failure}
      """)
    for (index, job) in jobs.prefix(2).enumerated() {
      backend.jobs.append(
        .init(
          job: job.job.id, name: job.job.name, slurmID: 10, work: job.order.work, commands: 1, outputPath: "",
          arrayTask: index))
      backend.indexByJob[job.job.id] = index
    }
    backend.arrayTasks[10] = [0, 1]
    #expect(backend.dependency(of: jobs[2]) == "afterok:10")
    #expect(backend.dependency(of: jobs[3]) == "afterok:10_1")
    #expect(backend.dependency(of: jobs[4]) == "afternotok:10_0?afternotok:10_1")
    #expect(backend.slurmNames(of: [1]) == ["10_1"])
    #expect(backend.slurmNames(of: [1], covered: { $0 == 0 }) == ["10"])
  }

  @Test func squeueLinesOfArrayTasksAreNamedByArrayAndTask() {
    #expect(SqueueLine("12|RUNNING|None|0|10|2|")?.slurmName == "10_2")
    #expect(SqueueLine("10|PENDING|None|0|10|3|")?.slurmName == "10_3")
    #expect(SqueueLine("12|COMPLETED|None|0|12|N/A|")?.slurmName == "12")
  }

  @Test func aMatrixLargerThanTheClustersMaxArraySizeIsOneArrayPerSoManyInstances() {
    #expect(SlurmArray.maxTasks(fromConfiguration: "MaxArraySize            = 1001\nMaxJobCount = 10000\n") == 1000)
    #expect(SlurmArray.maxTasks(fromConfiguration: "nothing") == nil)
    let values = (0..<5).map { "'\($0)'" }.joined(separator: ", ")
    let (_, jobs) = plan("jobs: {a: {matrix: {n: [\(values)]}, command: run}}")
    let submissions = SlurmArray.submissions(of: jobs, limits: [nil], maxTasks: 2)
    #expect(submissions.map(\.arraySpec) == ["0-1", "0-1", "0"])
    #expect(submissions.map { $0.tasks.map(\.job.name) } == [["a[0]", "a[1]"], ["a[2]", "a[3]"], ["a[4]"]])
  }
}
