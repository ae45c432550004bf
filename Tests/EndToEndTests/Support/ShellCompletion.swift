import Foundation
import Testing

/// One of the shells oprun writes a completion script for, with that script loaded, asked
/// what it offers at the end of a command line — as a user sees it after <TAB>. `oprun` on
/// the shell's `PATH` is the oprun under test, which the scripts call to read a manifest's jobs.
struct ShellCompletion {
  enum Shell: String, CaseIterable, CustomStringConvertible {
    case bash, zsh, fish
    var description: String { rawValue }
  }

  let shell: Shell
  private let folder: Scratch
  private let script: String
  private let tool: ExternalTool
  /// zsh runs under `timeout`: a limit only, so that a broken script cannot hang the suite.
  private let limit: ExternalTool?

  init(_ shell: Shell) throws {
    self.shell = shell
    folder = try Scratch()
    tool = try ExternalTool(shell.rawValue, package: shell.rawValue)
    limit = shell == .zsh ? try ExternalTool("timeout", package: "coreutils") : nil
    let generated = try runOprun(["--generate-completion-script", shell.rawValue], in: folder)
    try #require(generated.status == 0, "\(generated.stderr)")
    script = try folder.write("oprun." + shell.rawValue, generated.stdout)
    try FileManager.default.createDirectory(atPath: folder.path("bin"), withIntermediateDirectories: false)
    try FileManager.default.createSymbolicLink(atPath: folder.path("bin/oprun"), withDestinationPath: oprunBinary)
    if shell == .zsh {
      try folder.write("capture.zsh", Self.zshCapture)
      try folder.write("init.zsh", Self.zshInit)
    }
  }

  /// What the shell offers when <TAB> is pressed at the end of `line`, in `directory` (the
  /// package's root unless told): the candidates as the shell would insert them, without
  /// descriptions, in its order.
  func offered(_ line: String, in directory: String = packageRoot.path) throws -> [String] {
    let result =
      try limit.map {
        try $0.run(["120", tool.path] + arguments(line, directory), in: folder, environment: ["PATH": path])
      }
      ?? tool.run(arguments(line, directory), in: folder, environment: ["PATH": path])
    #expect(result.status == 0, "\(shell) \(line): \(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    switch shell {
    case .bash: return lines
    case .zsh: return lines.map { $0.replacing("\\", with: "") }
    case .fish: return lines.map { String($0.split(separator: "\t", omittingEmptySubsequences: false)[0]) }
    }
  }

  private var path: String {
    folder.path("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
  }

  private func arguments(_ line: String, _ directory: String) -> [String] {
    switch shell {
    case .bash:
      let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
      let program = """
        cd "$1"; source "$2"; shift 2
        COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
        _oprun_default_run oprun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        (( ${#COMPREPLY[@]} )) && printf '%s\\n' "${COMPREPLY[@]}"
        exit 0
        """
      return ["-c", program, "bash", directory, script] + words
    case .zsh:
      return ["-f", folder.path("capture.zsh"), script, directory, line]
    case .fish:
      return ["--no-config", "-c", "cd $argv[1]; source $argv[2]; complete -C $argv[3]", directory, script, line]
    }
  }

  /// Types LINE and <TAB> into an interactive zsh on a pseudo-terminal (zsh's own zpty) and
  /// prints what the completion system was given to offer, one a line. The completion ends by
  /// writing a NUL, which is what the reader waits for.
  private static let zshCapture = #"""
    zmodload zsh/zpty || exit 3
    script=$1 directory=$2 line=$3
    zpty capture zsh -f -i
    zpty -w capture "cd ${(q)directory}; source ${(q)0:h}/init.zsh ${(q)script}"
    zpty -w capture "$line"$'\t'
    output=
    while zpty -r capture chunk; do
      output+=$chunk
      [[ $output == *$'\0'* ]] && break
    done
    zpty -d capture
    [[ $output == *$'\0'* ]] || exit 4
    for l in ${(f)output}; do [[ $l == *'<offered>'* ]] && print -r -- ${${l#*<offered>}%%$'\r'*}; done
    exit 0
    """#

  /// The interactive zsh's set-up: the completion system, the script, and a `compadd` that
  /// prints each candidate it is given before adding it.
  private static let zshInit = #"""
    PROMPT= RPROMPT=
    autoload -Uz compinit && compinit -u -D
    source $1
    zstyle ':completion:*' insert-tab false
    bindkey '^I' complete-word
    compadd () {
      if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
      local -a candidates
      builtin compadd -A candidates "$@"
      local candidate
      for candidate in $candidates; do print -r -- "<offered>$candidate"; done
      builtin compadd "$@"
    }
    comppostfuncs=(__capture_end)
    __capture_end () { print -n $'\0'; exit }
    """#
}
