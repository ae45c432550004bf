import ArgumentParser

/// `oprun --generate-completion-script bash|zsh|fish`: ArgumentParser's scripts, taught the
/// one thing they do not know — that `run` is the default command. People type
/// `oprun jobs.yaml -j 4`, not `oprun run jobs.yaml -j 4`, so a first word that is no
/// subcommand is taken as the start of a run: its options and files are offered after it,
/// and `oprun -<TAB>` offers the run's options beside `--help` and `--version`.
enum CompletionScripts {
  /// The script for `shell`, or nil for a shell ArgumentParser does not know.
  static func script(for shellName: String) -> String? {
    guard let shell = CompletionShell(rawValue: shellName) else { return nil }
    let generated = Oprun.completionScript(for: shell)
    switch shell {
    case .bash: return generated + bashDefaultRun
    case .zsh: return zsh(generated)
    case .fish: return fish(generated)
    default: return generated
    }
  }

  /// The subcommands' names, as the scripts dispatch on them.
  private static var subcommandNames: [String] {
    Oprun.configuration.subcommands.map { $0.configuration.commandName ?? String(describing: $0).lowercased() } + [
      "help"
    ]
  }

  /// Completes `oprun WORD…` as `oprun run WORD…` when WORD is no subcommand and either an
  /// option or not the word being completed (a first word is still offered the subcommands).
  private static var bashDefaultRun: String {
    """

    _oprun_default_run() {
        case "${COMP_WORDS[1]}" in
        \(subcommandNames.joined(separator: "|"))) ;;
        *)
            if (( COMP_CWORD > 1 )) || [[ "${COMP_WORDS[1]}" == -* ]]; then
                COMP_WORDS=("${COMP_WORDS[0]}" run "${COMP_WORDS[@]:1}")
                (( COMP_CWORD++ ))
            elif (( COMP_CWORD == 1 )); then
                _oprun "${@}"
                COMPREPLY+=($(compgen -f -- "${2}"))
                return
            fi
            ;;
        esac
        _oprun "${@}"
    }
    complete -o filenames -F _oprun_default_run oprun

    """
  }

  private static func zsh(_ generated: String) -> String {
    let trailer = """
      if [[ "${funcstack[1]}" = _oprun ]]; then
          _oprun "${@}"
      else
          compdef _oprun oprun
      fi
      """
    let wrapper = """
      _oprun_default_run() {
          case "${words[2]}" in
          \(subcommandNames.joined(separator: "|"))) ;;
          *)
              if (( CURRENT > 2 )) || [[ "${words[2]}" == -* ]]; then
                  words=("${words[1]}" run "${words[@]:1}")
                  (( CURRENT++ ))
              fi
              ;;
          esac
          _oprun "${@}"
      }

      if [[ "${funcstack[1]}" = _oprun ]]; then
          _oprun_default_run "${@}"
      else
          compdef _oprun_default_run oprun
      fi
      """
    return generated.replacing(trailer, with: wrapper)
  }

  /// Every completion fish offers after `oprun run` is offered after a bare `oprun` too, while
  /// no subcommand has been typed; and files, which a manifest is.
  private static func fish(_ generated: String) -> String {
    let runCondition = "-n '__oprun_should_offer_completions_for_flags_or_options \"oprun run\""
    var defaultRunLines: [String] = []
    for line in generated.split(separator: "\n" as Character).map(String.init) {
      guard line.hasPrefix("complete -c 'oprun' " + runCondition),
        let conditionEnd = line.dropFirst(22 + runCondition.count).firstRange(of: "' ")
      else { continue }
      defaultRunLines.append("complete -c 'oprun' -n '__oprun_default_run' " + line[conditionEnd.upperBound...])
    }
    let subcommands = subcommandNames.joined(separator: " ")
    return generated + """

      function __oprun_default_run
          for token in (__oprun_tokens -pc)[2..]
              string match -q -- '-*' $token; and continue
              contains -- $token \(subcommands); and return 1
              return 0
          end
          return 0
      end

      complete -c 'oprun' -n '__oprun_default_run' -F
      \(defaultRunLines.joined(separator: "\n"))

      """
  }
}
