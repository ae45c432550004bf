import OprunRuntime
import Testing

/// Where a manifest's `.oprun/` and each thing in it are: one spelling for every reader and writer.
@Suite struct StateFolderTests {
  @Test func aManifestsStateIsInItsFolder() {
    let state = StateFolder(manifestPath: "/work/project/jobs.yaml")
    #expect(state.path == "/work/project/.oprun")
    #expect(state.runs == "/work/project/.oprun/runs")
    #expect(state.inputs == "/work/project/.oprun/inputs")
    #expect(state.outputs == "/work/project/.oprun/outputs")
    #expect(state.hashes == "/work/project/.oprun/hashes")
    #expect(state.slurmOutput(run: "20260101T000000-7") == "/work/project/.oprun/slurm/20260101T000000-7")
  }

  @Test func aManifestAtTheRootHasItsStateAtTheRootWithNoDoubledSlash() {
    let state = StateFolder(manifestPath: "/jobs.yaml")
    #expect(state.path == "/.oprun")
    #expect(state.runs == "/.oprun/runs")
    #expect(state.hashes == "/.oprun/hashes")
    #expect(state.slurmOutput(run: "r") == "/.oprun/slurm/r")
    #expect(StateFolder(manifestFolder: "/") == state)
  }

  @Test func aManifestNamedRelativelyKeepsItsStateRelative() {
    #expect(StateFolder(manifestPath: "jobs.yaml").runs == "./.oprun/runs")
    #expect(StateFolder(manifestPath: "ci/jobs.yaml").inputs == "ci/.oprun/inputs")
  }

  @Test func theJournalsListingsAndWalksUseTheSameFolder() {
    let manifest = "/jobs.yaml"
    #expect(JournalFolder(manifestPath: manifest).path == StateFolder(manifestPath: manifest).runs)
    #expect(FileListings(.inputs, manifestPath: manifest).path == StateFolder(manifestPath: manifest).inputs)
    #expect(FileListings(.outputs, manifestPath: manifest).path == StateFolder(manifestPath: manifest).outputs)
    #expect(JournalFolder(manifestPath: manifest).file(ofRun: "r") == "/.oprun/runs/r.ndjson")
  }
}
