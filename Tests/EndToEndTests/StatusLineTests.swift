import Foundation
import Testing

/// The live status line (SPEC §5) as a person sees it: oprun in a real terminal (tmux), read
/// back with `capture-pane`.
@Suite struct StatusLineTests {
  let manifest = """
    max-concurrent: 2
    jobs:
      build: {command: "touch build.started; while [ ! -e go ]; do sleep 0.02; done; echo built"}
      lint: {command: "touch lint.started; while [ ! -e go ]; do sleep 0.02; done"}
      test: {command: "echo tested", dependencies: [build]}
    """

  @Test func theLineStaysUnderTheTimelineTicksWhileNothingHappensAndIsGoneAtTheEnd() throws {
    let folder = try Scratch()
    try folder.manifest(manifest)
    let terminal = try Terminal(in: folder, running: [oprunBinary] + runArguments())
    defer { terminal.close() }

    try folder.waitUntilExists("build.started")
    try folder.waitUntilExists("lint.started")
    try folder.waitUntilExecuting("lint")
    // Nothing happens while both jobs wait: the line is redrawn by the clock alone.
    let ticking = try terminal.waitForLastLine { $0.hasPrefix("[0/3] running: build, lint · ") && !$0.hasSuffix(" 0.0s") }
    #expect(ticking.range(of: #"^\[0/3\] running: build, lint · \d+\.\ds$"#, options: .regularExpression) != nil)

    folder.touch("go")
    try folder.waitUntilExists("oprun.status")
    #expect(folder.read("oprun.status") == "0\n")
    let screen = try terminal.screen()
    #expect(!screen.contains("running:"), "the status line is erased at the end:\n\(screen)")
    let lines = screen.split(separator: "\n").map(String.init)
    #expect(lines.last?.hasPrefix("── summary: 3 jobs · 3 succeeded") == true, "\(screen)")
    // Every timeline line is whole: time, word, job, never a piece of the status line.
    for word in ["executing", "finished"] {
      for job in ["build", "lint", "test"] {
        #expect(
          lines.contains { $0.range(of: #"^ +\d+\.\d{3}s  \#(word) +\#(job)\b"#, options: .regularExpression) != nil },
          "\(word) \(job) in\n\(screen)")
      }
    }
    #expect(lines.contains("build | built") && lines.contains("test | tested"))
  }

  @Test func theCounterIsBoldOnATerminalAndPlainWithNoColor() throws {
    for noColor in [false, true] {
      let folder = try Scratch()
      try folder.manifest(manifest)
      let terminal = try Terminal(in: folder, running: [oprunBinary] + runArguments(), noColor: noColor)
      defer { terminal.close() }
      try folder.waitUntilExecuting("lint")
      let line = try terminal.waitForLastLine(escapes: true) { $0.contains("running: build, lint") }
      #expect(line.hasPrefix("\u{1B}[1m[0/3]") == !noColor, "\(line.debugDescription)")
      #expect(line.contains("\u{1B}[") == !noColor, "\(line.debugDescription)")
      folder.touch("go")
      try folder.waitUntilExists("oprun.status")
    }
  }

  /// Ctrl-C in a terminal: one line says what the run waits for and what a second Ctrl-C
  /// does, the status line says `cancelling`, and a second Ctrl-C ends the run at once.
  @Test func ctrlCSaysWhatTheRunWaitsForAndASecondOneKillsAtOnce() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      jobs:
        stubborn: {command: "trap '' INT TERM; touch stubborn.started; while [ ! -e go ]; do sleep 0.02; done"}
        after: {command: echo after, dependencies: [stubborn]}
      """)
    let terminal = try Terminal(in: folder, running: [oprunBinary] + runArguments())
    defer { terminal.close() }
    try folder.waitUntilExists("stubborn.started")
    try folder.waitUntilExecuting("stubborn")
    try terminal.send("C-c")
    _ = try terminal.waitForLastLine { $0.hasPrefix("[1/2] cancelling: stubborn · ") }
    let screen = try terminal.screen()
    #expect(
      screen.contains("interrupted  cancelling 2 jobs; waiting up to 5s for stubborn — Ctrl-C again to kill now"),
      "\(screen)")
    try terminal.send("C-c")
    try folder.waitUntilExists("oprun.status")
    #expect(folder.read("oprun.status") == "130\n")
    let end = try terminal.screen()
    #expect(end.contains("interrupted  again: killing stubborn now"), "\(end)")
  }

  /// An interactive job's prompt stays the terminal's last line while another job prints,
  /// as ninja's console pool: the other job's lines are printed once the prompt is answered.
  @Test func anInteractiveJobsPromptIsNotTornByOtherJobsLines() throws {
    let folder = try Scratch()
    try folder.manifest(
      """
      max-concurrent: 2
      jobs:
        ticker: {command: "i=0; while [ ! -e go ]; do i=$((i+1)); echo tick $i; echo $i > ticks; sleep 0.02; done"}
        ask:
          command: "printf 'your name? '; read name; echo hello $name; touch go"
          interactive: true
      """)
    let terminal = try Terminal(in: folder, running: [oprunBinary] + runArguments())
    defer { terminal.close() }
    try folder.waitUntilExecuting("ask")
    _ = try terminal.waitForLastLine { $0 == "your name? " || $0 == "your name?" }
    // The ticker goes on printing: ten more ticks after the prompt showed.
    let shown = Int(folder.read("ticks")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    try waitUntil("ten more ticks") {
      (Int(folder.read("ticks")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0) >= shown + 10
    }
    let waiting = try terminal.screen()
    #expect(waiting.split(separator: "\n").last.map(String.init)?.hasPrefix("your name?") == true, "\(waiting)")
    try terminal.send("Ada")
    try terminal.send("Enter")
    try folder.waitUntilExists("oprun.status")
    #expect(folder.read("oprun.status") == "0\n")
    // Every held tick comes after the answer: on a slow machine, more than a screenful.
    let lines = try terminal.screen(scrolledOff: true).split(separator: "\n").map(String.init)
    let answered = try #require(lines.firstIndex(of: "hello Ada"), "\(lines)")
    #expect(lines[answered - 1] == "your name? Ada")
    let lastTick = try #require(lines.lastIndex { $0.hasPrefix("ticker | tick ") })
    #expect(lastTick > answered, "the held lines come after the answer")
  }

  /// `ctl pause` and `ctl suspend` show on the status line until they are undone.
  @Test func pausedJobsAndSuspendedQueuesShowOnTheLine() throws {
    let folder = try Scratch()
    try folder.manifest(manifest)
    let terminal = try Terminal(in: folder, running: [oprunBinary] + runArguments())
    defer { terminal.close() }
    try folder.waitUntilExecuting("lint")
    let pid = try #require(folder.events.named("transition").isEmpty ? nil : runPID(folder))
    for request in [["pause", "lint"], ["suspend", "jobs"]] {
      let answer = try runOprun(["ctl", "--pid", String(pid)] + request, in: folder)
      #expect(answer.status == 0, "\(answer.stderr)")
    }
    _ = try terminal.waitForLastLine { $0.hasPrefix("[0/3] running: build · paused: lint · suspended: jobs · ") }
    for request in [["continue", "lint"], ["resume", "jobs"]] {
      _ = try runOprun(["ctl", "--pid", String(pid)] + request, in: folder)
    }
    _ = try terminal.waitForLastLine { $0.hasPrefix("[0/3] running: build, lint · ") }
    folder.touch("go")
    try folder.waitUntilExists("oprun.status")
    #expect(folder.read("oprun.status") == "0\n")
  }

  /// The pid of the run whose events are in `folder`: its socket is named by it.
  private func runPID(_ folder: Scratch) -> Int32? {
    let control = folder.events.named("run-started").first?["control"] as? String
    return control.flatMap { Int32(URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent) }
  }

  @Test func noStatusLineWhenOutputIsNotATerminal() throws {
    let folder = try Scratch()
    try folder.manifest(manifest)
    folder.touch("go")
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 0)
    #expect(!run.stdout.contains("running:") && !run.stdout.contains("\u{1B}"))
  }
}

/// A tmux session on a server of its own, 100 × 30, running a command in a folder; the command's
/// exit status is written to `oprun.status` there and the pane stays to be read (`remain-on-exit`).
/// The shell around the command catches SIGINT (a handler, which the command does not inherit,
/// where ignoring it would be inherited), so that Ctrl-C ends the command and not the shell.
private final class Terminal {
  let tmux: ExternalTool
  let socket: String

  init(in folder: Scratch, running command: [String], noColor: Bool = false) throws {
    tmux = try ExternalTool("tmux", package: "tmux")
    socket = folder.path("tmux.sock")
    let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    let colour = noColor ? "export NO_COLOR=1" : "unset NO_COLOR"
    let script =
      "cd '\(folder.url.path)' && \(colour) && export XDG_STATE_HOME='\(folder.url.path)/state' && trap : INT && \(quoted); echo $? > oprun.status.part && mv oprun.status.part oprun.status"
    // The server is a fork of the client that starts it and would keep every descriptor the
    // client inherits, Foundation's watch on the client among them: the client is started by a
    // bash that has closed all but the standard three.
    let closingDescriptors =
      #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$@""#
    let started = try ExternalTool("bash", package: "bash").run(
      [
        "-c", closingDescriptors, "bash", tmux.path, "-S", socket, "-f", "/dev/null", "start-server", ";",
        "set-option", "-g", "remain-on-exit", "on", ";", "new-session", "-d", "-x", "100", "-y", "30", "sh", "-c", script,
      ], in: folder, environment: ["TERM": "xterm-256color"])
    guard started.status == 0 else { throw WaitFailure(what: "tmux to start: \(started.stderr)") }
  }

  /// The pane's text, with the terminal's escapes and the lines scrolled off its top when
  /// asked, without tmux's own last line once the command has ended ("Pane is dead").
  func screen(escapes: Bool = false, scrolledOff: Bool = false) throws -> String {
    let folder = try Scratch()
    let options = ["-p"] + (escapes ? ["-e"] : []) + (scrolledOff ? ["-S", "-"] : [])
    let text = try tmux.run(["-S", socket, "capture-pane"] + options + ["-t", "0"], in: folder).stdout
    return text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Pane is dead") }
      .joined(separator: "\n")
  }

  /// Types `keys` (tmux's names: `C-c` is Ctrl-C) into the pane.
  func send(_ keys: String) throws {
    let folder = try Scratch()
    _ = try tmux.run(["-S", socket, "send-keys", "-t", "0", keys], in: folder)
  }

  /// Waits until the last non-empty line of the pane satisfies `condition`, and returns it.
  func waitForLastLine(escapes: Bool = false, _ condition: (String) -> Bool) throws -> String {
    var last = ""
    try waitUntil("the terminal's last line to match") {
      last = (try? screen(escapes: escapes))?.split(separator: "\n").last.map(String.init) ?? ""
      return condition(last)
    }
    return last
  }

  func close() {
    // Started from a test process, the server does not reap its pane's process and so waits
    // for it forever after `kill-server`: it is killed instead.
    guard let folder = try? Scratch(),
      let pid = try? tmux.run(["-S", socket, "display-message", "-p", "#{pid}"], in: folder).stdout,
      let serverPID = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines))
    else { return }
    kill(serverPID, SIGKILL)
  }
}
