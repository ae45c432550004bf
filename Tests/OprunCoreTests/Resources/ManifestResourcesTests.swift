import OprunCore
import Testing

/// `resources` and `budget` (SPEC §12): sizes, whole CPUs, a job over its queue over
/// `defaults`, and needs no budget could hold, each reported at the value.
@Suite struct ManifestResourcesTests {
  private func graph(_ yaml: String) throws -> JobGraph {
    try ManifestLoader.graph(from: SourceText(path: "jobs.yaml", text: yaml), defaultMaxConcurrent: 4).get()
  }

  @Test(arguments: [
    ("512M", 512 << 20), ("2G", 2 << 30), ("1.5G", 3 << 29), ("800K", 800 << 10), ("1T", 1 << 40),
    ("4096", 4096), ("2Gi", 2 << 30), ("512m", 512 << 20), ("'1G'", 1 << 30),
  ])
  func memoryIsASizeInPowersOf1024(text: String, bytes: Int) throws {
    let graph = try graph("jobs: {a: {command: x, resources: {memory: \(text)}}}")
    #expect(graph.jobs[0].needs == ResourceNeeds(memory: bytes))
  }

  @Test(arguments: ["2 GB", "2GB", "-1", "0", "0.5", "2X", "G", "1.5", "''", "0K"])
  func aMemoryThatIsNoSizeIsReportedAtTheValueWithTheFormsThatWork(text: String) {
    let yaml = "jobs:\n  a:\n    command: x\n    resources: {memory: \(text)}\n"
    let written = text.hasPrefix("'") ? "" : text
    #expect(
      manifestMessages(yaml) == [
        "jobs.yaml:4:25: error: memory must be a size like 512M, 2G, 1.5G or a number of bytes, found '\(written)'"
      ])
  }

  @Test(arguments: ["0", "-1", "0.5", "2X", "1.0"])
  func cpusThatAreNotAPositiveWholeNumberAreReportedAtTheValue(text: String) {
    let yaml = "jobs:\n  a:\n    command: x\n    resources: {cpus: \(text)}\n"
    #expect(
      manifestMessages(yaml) == ["jobs.yaml:4:23: error: cpus must be a positive whole number like 1, 2 or 8, found '\(text)'"])
  }

  @Test func aJobOverridesItsQueueWhichOverridesDefaultsOneKeyAtATime() throws {
    let graph = try graph(
      """
      defaults: {resources: {cpus: 1, memory: 1G}}
      queues:
        heavy: {resources: {cpus: 4}}
      jobs:
        plain: {command: x}
        queued: {command: x, queue: heavy}
        own: {command: x, queue: heavy, resources: {memory: 2G}}
        both: {command: x, resources: {cpus: 2, memory: 512M}}
      """)
    #expect(
      graph.jobs.map(\.needs) == [
        ResourceNeeds(cpus: 1, memory: 1 << 30), ResourceNeeds(cpus: 4, memory: 1 << 30),
        ResourceNeeds(cpus: 4, memory: 2 << 30), ResourceNeeds(cpus: 2, memory: 512 << 20),
      ])
  }

  @Test func aJobThatDeclaresNothingNeedsNothingAndTheBudgetIsAsWritten() throws {
    let graph = try graph("budget: {cpus: 8}\njobs: {a: {command: x}}")
    #expect(!graph.jobs[0].needs.declaresAny)
    #expect(!graph.declaresResources)
    #expect(graph.manifestBudget == ResourceNeeds(cpus: 8))
  }

  @Test func aNeedOverTheBudgetIsAnErrorNamingJobNeedAndBudgetAtTheNeed() {
    let yaml = """
      budget: {cpus: 4, memory: 2G}
      defaults: {resources: {memory: 3G}}
      jobs:
        test: {command: x, resources: {cpus: 6}}
        link: {command: x, resources: {cpus: 1, memory: 1G}}
      """
    #expect(
      manifestMessages(yaml) == [
        "jobs.yaml:2:32: error: job 'test' needs 3.0 GB of memory, more than the budget of 2.0 GB: it could never start",
        "jobs.yaml:4:40: error: job 'test' needs 6 CPUs, more than the budget of 4 CPUs: it could never start",
      ])
  }

  @Test func aMisspeltResourceKeyIsAnsweredWithTheKeyMeant() {
    let yaml = "budget: {cpu: 4}\njobs: {a: {command: x, resources: {mem: 1G}}}\n"
    #expect(
      manifestMessages(yaml) == [
        "jobs.yaml:1:10: error: unknown key 'cpu' in 'budget' (did you mean 'cpus'?)",
        "jobs.yaml:2:36: error: unknown key 'mem' in 'resources' of job 'a' (did you mean 'memory'?)",
      ])
  }

  @Test func aBudgetOfTheMachineRefusesWhatItCouldNeverHold() throws {
    let graph = try graph("jobs: {a: {command: x, resources: {cpus: 3, memory: 1G}}, b: {command: y}}")
    let problems = graph.needsBeyond(ResourceNeeds(cpus: 2, memory: 4 << 30), budgetNamed: "--budget")
    #expect(
      problems.map(\.description) == [
        "jobs.yaml:1:42: error: job 'a' needs 3 CPUs, more than --budget of 2 CPUs: it could never start"
      ])
  }

  @Test func sizesAreReadAsAPersonWritesThem() {
    #expect(MemoryText.text(bytes: 512 << 20) == "512 MB")
    #expect(MemoryText.text(bytes: 3 << 29) == "1.5 GB")
    #expect(MemoryText.text(bytes: 100) == "100 B")
    #expect(ByteSize.written(3 << 29) == "1536M")
    #expect(ByteSize.written(2 << 30) == "2G")
  }
}
