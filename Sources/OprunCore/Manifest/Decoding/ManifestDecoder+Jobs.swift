extension ManifestDecoder {
  /// The jobs in manifest order; a job written twice is reported and only the first kept.
  mutating func jobs(_ node: Int32) -> [JobSpec] {
    guard tree[node].kind == .mapping else {
      reportWrongType(node, expected: "a mapping of job names to jobs")
      return []
    }
    let entries = tree.entries(of: node)
    var jobs: [JobSpec] = []
    jobs.reserveCapacity(entries.count)
    var indexByName: [String: Int] = [:]
    indexByName.reserveCapacity(entries.count)
    for (keyNode, value) in entries {
      guard let name = keyName(keyNode) else { continue }
      guard !name.isEmpty else {
        report(keyNode, "a job name must not be empty")
        continue
      }
      if let first = indexByName[name].map({ jobs[$0].location }) {
        report(keyNode, "duplicate job '\(name)' (first defined at line \(first.line), column \(first.column))")
        continue
      }
      indexByName[name] = jobs.count
      jobs.append(job(named: name, at: location(keyNode), value))
    }
    return jobs
  }

  /// One job; whatever is invalid in it is reported and left at its default.
  private mutating func job(named name: String, at location: SourceLocation, _ node: Int32) -> JobSpec {
    var job = JobSpec(name: name, location: location, commands: [])
    if tree[node].isNull {
      report(Diagnostic(at: location, "job '\(name)' has no 'command' or 'commands'"))
      return job
    }
    guard tree[node].kind == .mapping else {
      let hint = tree[node].kind == .scalar ? "; write 'command: \(tree[node].text)' under '\(name):'" : ""
      reportWrongType(node, expected: "a mapping of job keys for job '\(name)'", hint: hint)
      return job
    }
    var seen = KeysRead<JobKey>()
    var substitutions: [Located<Substring>] = []
    for (keyNode, value) in tree.entries(of: node) {
      guard let key: JobKey = schemaKey(keyNode, of: node, seen: &seen, context: " in job '\(name)'") else { continue }
      if key == .command || key == .commands, seen.contains(.command), seen.contains(.commands) {
        report(keyNode, "job '\(name)' has both 'command' and 'commands'; write one of them")
        continue
      }
      if key == .matrix {
        if !tree[value].isNull { job.matrix = matrix(value, key: keyNode, job: name) }
        continue
      }
      // First, so that the value read has its variables in.
      if !scalarsWithSubstitutions.isEmpty { collectSubstitutions(in: value, of: key, into: &substitutions) }
      decode(key, value, into: &job)
    }
    checkSubstitutions(substitutions, of: job)
    if !seen.containsOrMeant(.command), !seen.containsOrMeant(.commands) {
      report(Diagnostic(at: location, "job '\(name)' has no 'command' or 'commands'"))
    }
    return job
  }

  private mutating func decode(_ key: JobKey, _ value: Int32, into job: inout JobSpec) {
    if key == .command || key == .commands {
      decodeCommands(key, value, into: &job)
      return
    }
    guard !tree[value].isNull else { return }
    switch key {
    case .dotenv: job.dotenv = dotenvFiles(value)
    case .command, .commands: break
    case .dependencies: job.dependencies = jobNames(value)
    case .priority: job.priority = priority(value)
    case .qos: job.qos = qualityOfService(value)
    case .queue: job.queue = name(value, of: "queue").map { Located($0, at: location(value)) }
    case .completion: job.completion = command(value, under: .completion)
    case .runIf:
      job.runIf =
        word(value, kind: "run-if condition", among: RunCondition.allCases.map { ($0.rawValue, $0) }) ?? .success
    case .timeout: job.timeout = duration(value, key: "timeout")
    case .retries: job.retries = retryCount(value)
    case .env: job.env = environment(value)
    case .cwd: job.cwd = string(value, expected: "a directory")
    case .barrier: job.barrier = boolean(value, key: "barrier") ?? false
    case .description: job.description = string(value, expected: "a description")
    case .interactive: job.interactive = boolean(value, key: "interactive") ?? false
    case .matrix: break
    case .resources: job.resources = resources(value, of: "'resources' of job '\(job.name)'")
    case .cache: job.cache = boolean(value, key: "cache")
    case .cacheEnv: job.cacheEnv = variableNames(value)
    case .inputs:
      job.inputs = pathPatterns(value, key: key)
      job.declaresFiles = job.declaresFiles || tree[value].kind == .sequence
    case .outputs:
      job.outputs = pathPatterns(value, key: key)
      job.declaresFiles = job.declaresFiles || tree[value].kind == .sequence
    }
  }

  private mutating func decodeCommands(_ key: JobKey, _ value: Int32, into job: inout JobSpec) {
    if key == .command {
      job.commands = command(value, under: .command).map { [$0] } ?? []
      return
    }
    guard tree[value].kind == .sequence else {
      if tree[value].isNull {
        report(value, "empty command list for job '\(job.name)'")
      } else {
        reportWrongType(
          value, expected: "a list of commands",
          hint: tree[value].kind == .scalar ? "; use 'command' for a single one" : "")
      }
      return
    }
    let items = tree.children(of: value)
    if items.isEmpty { report(value, "empty command list for job '\(job.name)'") }
    job.commands = items.compactMap { command($0, under: .commands) }
  }

  /// `cache-env`: a list of environment variable names (SPEC §14).
  private mutating func variableNames(_ node: Int32) -> [String] {
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of environment variable names")
      return []
    }
    return tree.children(of: node).compactMap { item in
      guard let name = string(item, expected: "an environment variable name") else { return nil }
      guard !name.isEmpty, !name.contains("="), !name.contains("\0") else {
        report(item, "'\(name)' in 'cache-env' is not an environment variable name")
        return nil
      }
      return name
    }
  }

  /// A list of path patterns (SPEC §10), each checked where it is written.
  private mutating func pathPatterns(_ node: Int32, key: JobKey) -> [Located<String>] {
    guard tree[node].kind == .sequence else {
      reportWrongType(node, expected: "a list of paths and patterns")
      return []
    }
    var patterns: [Located<String>] = []
    for item in tree.children(of: node) {
      guard tree[item].kind == .scalar, !tree[item].isNull || tree[item].text.isEmpty else {
        reportWrongType(item, expected: "a path or pattern")
        continue
      }
      switch PathPattern.parse(tree[item].text) {
      case .success(let pattern): patterns.append(Located(pattern.text, at: location(item)))
      // A NUL is reported where the YAML is read, in any string.
      case .failure(.containsNUL): continue
      case .failure(let error): report(item, "\(error.message) in '\(key.word)'")
      }
    }
    return patterns
  }

  private static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// One shell command: any scalar whose text is not blank (null is not a command), short
  /// enough to be one argument of `/bin/sh -c`. `key` is where it is written: `command`,
  /// `completion`, or an item of `commands`.
  private mutating func command(_ node: Int32, under key: JobKey) -> String? {
    guard tree[node].kind == .scalar, !tree[node].isNull || tree[node].text.isEmpty else {
      reportWrongType(node, expected: "a command", hint: notACommandHint(node, under: key))
      return nil
    }
    let text = tree[node].text
    guard text.utf8.contains(where: { !Self.isBlank($0) }) else {
      report(node, "empty command")
      return nil
    }
    guard ExecLimits.fitsOneString(text.utf8.count) else {
      report(node, "the command is \(text.utf8.count) bytes; \(ExecLimits.stringLimitText)")
      return nil
    }
    return text
  }

  /// What a command written as a list or as a mapping was likely meant to be: several
  /// commands in one string, or one string with a `: ` that YAML read as a mapping.
  private func notACommandHint(_ node: Int32, under key: JobKey) -> String {
    switch tree[node].kind {
    case .sequence:
      let items = tree.children(of: node)
      let texts = items.compactMap { tree[$0].kind == .scalar && !tree[$0].isNull ? tree[$0].text : nil }
      let isText = !items.isEmpty && texts.count == items.count
      if items.count <= 1 {
        let written = key == .commands ? "- " : key.word + ": "
        return "; a command is one string" + (isText ? " (\(written)\(texts[0]))" : "")
      }
      let example = isText ? " (\"\(texts.joined(separator: " && "))\")" : ""
      let several = key == .command ? " or use commands: [...] to run them at the same time" : ""
      return "; a command is one string: join them with &&\(example)\(several)"
    case .mapping:
      // `- echo note: done` is a mapping of `echo note` to `done`.
      let entries = Array(tree.entries(of: node))
      guard entries.count == 1, let (keyNode, value) = entries.first, tree[keyNode].kind == .scalar,
        tree[keyNode].isPlain, tree[value].kind == .scalar, tree[value].isPlain || tree[value].isNull,
        tree[value].isNull || tree[value].line == tree[keyNode].line
      else { return "" }
      let text = tree[keyNode].text + ":" + (tree[value].text.isEmpty ? "" : " " + tree[value].text)
      let written = (key == .commands ? "- " : key.word + ": ") + YAMLSyntaxHint.quoted(text)
      return "; quote the command: \(written)"
    case .scalar:
      return ""
    }
  }
}
