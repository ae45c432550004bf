import OprunCore
import Testing

/// Which commands run without `/bin/sh -c`: make's rule, no shell syntax and no shell word first.
@Suite struct DirectCommandTests {
  @Test(arguments: [
    ("true", ["true"]),
    ("sleep 0.5", ["sleep", "0.5"]),
    ("  cc  -O2\t-o app main.c ", ["cc", "-O2", "-o", "app", "main.c"]),
    ("./build.sh --fast", ["./build.sh", "--fast"]),
    ("/usr/bin/env", ["/usr/bin/env"]),
    ("make CC=clang", ["make", "CC=clang"]),
    ("date +%s", ["date", "+%s"]),
    ("python3 -m pytest tests/", ["python3", "-m", "pytest", "tests/"]),
  ])
  func aCommandWithoutShellSyntaxIsItsWords(_ command: String, _ words: [String]) {
    #expect(DirectCommand.arguments(of: command) == words)
  }

  @Test(arguments: [
    "echo 'quoted'", "echo \"quoted\"", "echo $HOME", "echo `date`", "ls | wc", "a; b", "a && b", "sleep 1 &",
    "cat < in", "echo > out", "(cd x)", "{ a; }", "ls *.c", "ls ?", "ls [ab]", "ls ~", "a # comment", "a\\ b",
    "a\nb", "CC=clang make", "cd build", "export A=1", "exit 3", "exec sleep 1", "set -e", "ulimit -n 10",
    ". ./env.sh", ": nothing", "echo hi", "printf x", "test -f x", "[ -f x ]", "kill 1", "pwd", "if", "!", "a^b",
    "", "   ", "while", "time make",
  ])
  func aCommandWithShellSyntaxOrAShellWordFirstNeedsTheShell(_ command: String) {
    #expect(DirectCommand.arguments(of: command) == nil, "\(command.debugDescription)")
  }
}
