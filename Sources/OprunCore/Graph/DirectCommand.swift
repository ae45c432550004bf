/// A command with no shell syntax, which can run as its own program without `/bin/sh -c`, as
/// make runs such commands: that saves a whole process (dash forks for its last command).
///
/// The rule is make's: no quote, `$`, backquote, `|`, `;`, `&`, `<`, `>`, `(`, `)`, `{`, `}`,
/// glob character, `~`, `#`, `!`, `^`, `=` in the first word, backslash or newline, and a first
/// word that is no shell keyword or builtin whose meaning differs from a program of that name
/// (`cd`, `export`, `exit`, `echo`, `test`, …). Everything else is split on blanks; the first
/// word is looked up on `PATH` as the shell would, and the shell runs the command after all
/// when that lookup finds nothing it can execute, so that a missing program, a script
/// without `#!` or one that is not executable behave exactly as under the shell.
public enum DirectCommand {
  /// The program and its arguments, or nil when the command needs the shell.
  public static func arguments(of command: String) -> [String]? {
    var words: [String] = []
    var word: [UInt8] = []
    for byte in command.utf8 {
      if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
        if !word.isEmpty {
          words.append(String(decoding: word, as: UTF8.self))
          word.removeAll(keepingCapacity: true)
        }
        continue
      }
      guard !shellBytes[Int(byte)] else { return nil }
      if byte == UInt8(ascii: "="), words.isEmpty { return nil }
      word.append(byte)
    }
    if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
    guard let program = words.first, !shellWords.contains(program) else { return nil }
    return words
  }

  /// Bytes that mean something to the shell (make's `sh_chars`, plus the control characters
  /// that end or separate commands).
  private static let shellBytes: [Bool] = {
    var table = [Bool](repeating: false, count: 256)
    for byte in "#;\"'*?[]&|<>(){}$`^~!\\".utf8 { table[Int(byte)] = true }
    for byte in 0..<0x20 where byte != UInt8(ascii: "\t") { table[Int(byte)] = true }
    table[0x7F] = true
    return table
  }()

  /// Shell keywords, and builtins that a program of the same name would not replace: make's
  /// `sh_cmds`, the keywords, and the builtins of dash whose programs behave otherwise
  /// (`echo` and `printf` read escapes differently, `kill` takes job numbers, `pwd` gives the
  /// logical folder).
  private static let shellWords: Set<String> = [
    ".", ":", "alias", "bg", "break", "case", "cd", "command", "continue", "eval", "exec", "exit", "export", "fc",
    "fg", "for", "getopts", "hash", "if", "jobs", "login", "logout", "read", "readonly", "return", "set", "shift",
    "test", "times", "trap", "type", "ulimit", "umask", "unalias", "unset", "wait", "while", "until", "do", "done",
    "then", "else", "elif", "fi", "esac", "in", "function", "select", "time", "local", "echo", "printf", "kill",
    "pwd", "[", "[[", "]]", "source", "builtin", "let", "declare", "typeset",
  ]
}
