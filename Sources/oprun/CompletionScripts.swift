import ArgumentParser

/// `oprun --generate-completion-script bash|zsh|fish`: ArgumentParser's scripts, taught what
/// they do not know — that `run` is the default command. People type `oprun jobs.yaml -j 4`,
/// not `oprun run jobs.yaml -j 4`, so a first word that is no subcommand is taken as the start
/// of a run: its options, and after a manifest the manifest's jobs (which oprun itself reads,
/// `JobCompletion`), are offered after it, never the subcommands; `oprun <TAB>` offers the
/// subcommands, the manifests and, as `make <TAB>` offers targets, the jobs of ./jobs.yaml.
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

  /// The arguments after `oprun` that print the jobs of ./jobs.yaml, one a line: the custom
  /// completion of a run's JOB, asked as it is asked for `oprun run <TAB>`.
  private static let jobsOfDefaultManifest = "---completion run -- positional@1 2 0 oprun run ''"

  /// Completes `oprun WORD…` as `oprun run WORD…` when WORD is no subcommand and either an
  /// option or not the word being completed (a first word is offered the subcommands, files
  /// and the jobs of ./jobs.yaml).
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
                local IFS=$'\\n'
                COMPREPLY+=($(compgen -W "$("${COMP_WORDS[0]}" \(jobsOfDefaultManifest) 2>/dev/null)" -- "${2}"))
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
              elif (( CURRENT == 2 )); then
                  local -i ret=1
                  _oprun "${@}" && ret=0
                  _files -g '*.yaml *.yml' && ret=0
                  local -a jobs=("${(@f)"$("${words[1]}" \(jobsOfDefaultManifest) 2>/dev/null)"}")
                  jobs=("${(@)jobs:#}")
                  (( ${#jobs} )) && compadd -J job -- "${jobs[@]}" && ret=0
                  return ret
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

  /// While no subcommand has been typed, fish is offered what it offers after `oprun run`
  /// (it completes that line itself), the subcommands only as the first word, with the jobs
  /// of ./jobs.yaml.
  private static func fish(_ generated: String) -> String {
    let subcommands = subcommandNames.joined(separator: " ")
    let script =
      generated
      // Debian 12's fish 3.6 refuses `commandline -tC` ("cannot set commandline"): the cursor's
      // place in the current token is the length of the token up to it.
      .replacing("(__oprun_tokens -tC)", with: "(string length -- (commandline -ct))")
      .replacing(
        "-n '__oprun_should_offer_completions_for_positional \"oprun\" -eq 1'", with: "-n '__oprun_first_word'")
    return script + """

      function __oprun_first_word
          test (count (__oprun_tokens -pc)) -eq 1
      end

      function __oprun_default_run
          for token in (__oprun_tokens -pc)[2..]
              string match -q -- '-*' $token; and continue
              contains -- $token \(subcommands); and return 1
              return 0
          end
          return 0
      end

      function __oprun_complete_as_run
          set -l tokens (__oprun_tokens -pc)
          set -l current (commandline -ct)
          complete -C "$(string join -- ' ' (string escape -- $tokens[1] run $tokens[2..])) $current"
      end

      function __oprun_jobs_of_default_manifest
          set -l program (__oprun_tokens -pc)[1]
          command $program \(jobsOfDefaultManifest) 2>/dev/null
      end

      complete -c 'oprun' -n '__oprun_default_run' -fka '(__oprun_complete_as_run)'
      complete -c 'oprun' -n '__oprun_first_word' -fka '(__oprun_jobs_of_default_manifest)'

      """
  }
}
