import OprunCore
import Testing

@testable import OprunRuntime

/// What `--backend slurm` hands `sbatch`, and how it reads `squeue`, without a cluster.
@Suite struct SlurmSubmissionTests {
  private func plan(_ manifest: String, options: SlurmOptions = SlurmOptions()) -> (SlurmBackend, [PlannedJob]) {
    let run = ClusterHarness(manifest)
    let backend = SlurmBackend(
      loop: EventLoop(),
      local: LocalBackend(loop: EventLoop(), framing: .jobLines, environment: JobEnvironment(inherited: []), grace: 1),
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
}
