extension Suggestion {
  /// The manifest key meant by an unknown key `word`, among the keys one mapping allows.
  ///
  /// In order: the same key in another case style (`max_concurrent`, `maxConcurrent`,
  /// `RUN_IF`); then another tool's word for it (``otherToolsKeys``), when that key is allowed
  /// here; then the closest key by edit distance, so that typos are still answered.
  public static func closestKey(to word: String, among keys: [String]) -> String? {
    let folded = fold(word)
    if let sameKey = keys.first(where: { fold($0) == folded }) { return sameKey }
    if let meant = otherToolsKeys[folded]?.first(where: keys.contains) { return meant }
    return closest(to: word, among: keys)
  }

  /// A key without case and separators: `depends_on`, `depends-on` and `dependsOn` are one word.
  static func fold(_ key: String) -> String {
    String(key.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != " " }.map(Character.init))
  }

  /// What people used to Docker Compose, GitHub Actions, Task, Dagu, GitLab CI, Buildkite, make,
  /// ninja, Nextflow or Snakemake type for oprun's keys, folded (``fold(_:)``), each with the
  /// oprun keys it may mean, the likelier first; the first one the mapping allows is suggested.
  static let otherToolsKeys: [String: [String]] = {
    let meanings: [(key: String, words: [String])] = [
      (
        "dependencies",
        [
          "depends", "depends-on", "needs", "deps", "after", "requires", "require", "prerequisites", "prereqs",
          "wait-for", "waits-for", "dependency", "upstream", "parents",
        ]
      ),
      ("command", ["cmd", "run", "exec", "shell", "entrypoint", "action"]),
      ("commands", ["cmds", "script", "scripts", "steps", "recipe", "run-commands"]),
      ("env", ["environment", "vars", "variables", "envs", "env-vars", "envvars", "environment-variables"]),
      ("cwd", ["dir", "directory", "working-directory", "working-dir", "workdir", "wd", "chdir", "cd", "pwd"]),
      (
        "timeout",
        [
          "timeout-minutes", "timeout-seconds", "timeout-sec", "timeout-in-minutes", "time-limit", "timelimit",
          "deadline", "time", "max-time", "max-duration",
        ]
      ),
      ("retries", ["retry", "attempts", "max-retries", "max-attempts", "retry-policy", "retry-count", "restart"]),
      ("run-if", ["if", "when", "condition", "conditions", "rules", "only-if", "run-when", "trigger-rule"]),
      (
        "max-concurrent",
        [
          "concurrency", "concurrent", "parallel", "parallelism", "max-parallel", "j", "jobs", "max-jobs", "num-jobs",
          "max-active-steps", "max-forks", "workers", "max-workers", "threads", "max-procs", "limit",
        ]
      ),
      (
        "on-failure",
        [
          "on-error", "on-fail", "continue-on-error", "continue-on-failure", "allow-failure", "fail-fast",
          "keep-going", "ignore-error", "ignore-errors", "error-strategy", "failure-policy",
        ]
      ),
      // Niceness is what a job's QoS sets (SPEC §3.3); `priority` orders starts, it renices nothing.
      ("qos", ["nice", "niceness", "ionice", "quality-of-service", "qualityofservice"]),
      ("priority", ["prio", "weight", "queue-priority", "importance"]),
      ("description", ["desc", "summary", "help", "doc", "comment", "label", "title"]),
      ("completion", ["finally", "after-script", "post", "on-exit", "defer", "cleanup", "handler-on"]),
      ("queue", ["pool", "resource-group", "concurrency-group", "lane", "runs-on"]),
      ("barrier", ["wait", "block", "sync"]),
      ("interactive", ["tty", "stdin", "foreground", "console"]),
      ("jobs", ["tasks", "targets", "services", "steps", "rules"]),
      ("defaults", ["default", "common"]),
      ("resources", ["resource", "requests", "limits", "requirements", "reqs"]),
      ("cpus", ["cpu", "cores", "ncpus", "num-cpus", "cpus-per-task", "nproc", "threads"]),
      ("memory", ["mem", "ram", "memory-limit", "mem-limit", "max-memory"]),
      ("budget", ["capacity", "resources-budget", "resource-budget"]),
    ]
    var table: [String: [String]] = [:]
    for (key, words) in meanings {
      for word in words { table[fold(word), default: []].append(key) }
    }
    return table
  }()
}
