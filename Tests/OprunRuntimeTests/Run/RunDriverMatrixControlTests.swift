import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun ctl` naming a matrix job (SPEC §11): the plain name is every instance, the
/// bracketed name one.
@Suite struct RunDriverMatrixControlTests {
  static let manifest = """
    max-concurrent: 1
    jobs:
      first: {command: first}
      t:
        matrix: {v: [a, b, c]}
        command: run ${{ matrix.v }}
    """

  @Test func cancellingThePlainNameCancelsTheInstancesThatHaveNotFinished() {
    let run = DriverHarness(Self.manifest)
    run.backend.scripts["first"] = FakeCommand(duration: 10)
    run.start()
    run.advance(by: 1)
    #expect(run.control("cancel", "t[a]").ok)
    let exchange = run.control("cancel", "t")
    #expect(exchange.ok, "\(exchange.error ?? "")")
    run.runToEnd()
    #expect(run.backend.orders.map(\.commands) == [["first"]])
    #expect(
      run.events.lines.filter { $0.hasSuffix("cancelled control") } == [
        "t[a] cancelled control", "t[b] cancelled control", "t[c] cancelled control",
      ])
  }

  @Test func reprioritisingThePlainNameMovesEveryInstanceThatWaits() {
    let run = DriverHarness(
      """
      max-concurrent: 1
      jobs:
        hold: {command: hold, priority: veryHigh}
        other: {command: other}
        t:
          matrix: {v: [a, b]}
          command: run ${{ matrix.v }}
      """)
    run.start()
    #expect(run.control("priority", "t", "high").ok)
    #expect(
      run.events.lines.filter { $0.hasSuffix(" priority high") } == ["t[a] priority high", "t[b] priority high"])
    run.runToEnd()
    #expect(run.backend.orders.map(\.commands) == [["hold"], ["run a"], ["run b"], ["other"]])
  }

  @Test func anUnknownInstanceIsRefusedWithTheInstancesThereAre() {
    let run = DriverHarness(Self.manifest)
    run.start()
    let exchange = run.control("cancel", "t[d]")
    #expect(!exchange.ok)
    #expect(
      exchange.error == "unknown job 't[d]': job 't' has no such instance; its instances are 't[a]', 't[b]' and 't[c]'")
  }
}
