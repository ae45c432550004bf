/// Turns every matrix job into its instances (SPEC §11), so that the graph, the engine and
/// every view see ordinary jobs: each instance at the place of its job, in the order of the
/// cartesian product (the first axis varies slowest), then each `include`; named
/// `NAME[v1,...]`; with `${{ matrix.AXIS }}` filled in; and a dependency on a matrix job's
/// plain name turned into one on each of its instances.
///
/// How many instances each matrix makes is bounded from its axes before any is made, so a
/// matrix of ten billion instances costs a few multiplications, not the memory.
enum MatrixExpansion {
  static let instanceLimit = 100_000
  static let jobLimit = 1_000_000
  /// An unknown instance's error lists at most this many of the instances there are.
  static let instancesListed = 10

  static func expand(_ manifest: Manifest, reportingTo diagnostics: inout DiagnosticCollector) -> Manifest {
    guard manifest.jobs.contains(where: { $0.matrix != nil }) else { return manifest }
    let bounds = instanceBounds(manifest.jobs, reportingTo: &diagnostics)
    var jobs: [JobSpec] = []
    jobs.reserveCapacity(bounds.total)
    var templates: [String: Range<Int>] = [:]
    for job in manifest.jobs {
      guard let matrix = job.matrix else {
        jobs.append(job)
        continue
      }
      let start = jobs.count
      if bounds.areKept && !matrix.isBroken {
        jobs += instances(of: job, matrix, reportingTo: &diagnostics)
      }
      templates[job.name] = start..<jobs.count
    }
    resolveDependencies(of: &jobs, templates: templates, reportingTo: &diagnostics)
    var expanded = manifest
    expanded.jobs = jobs
    return expanded
  }

  /// Whether every matrix is within bounds (when one is not, none is expanded: the
  /// manifest is refused anyway), and how many jobs the manifest holds at most once
  /// expanded: the product of a matrix's axes, plus its `include`s (an `exclude` only ever
  /// makes fewer).
  private static func instanceBounds(_ jobs: [JobSpec], reportingTo diagnostics: inout DiagnosticCollector)
    -> (areKept: Bool, total: Int)
  {
    var areKept = true
    var total = 0
    for job in jobs {
      guard let matrix = job.matrix else {
        total += 1
        continue
      }
      let bound = instanceBound(matrix)
      guard let bound, bound <= instanceLimit else {
        let count = bound.map { "\($0)" } ?? "more than \(Int.max)"
        let sizes = matrix.axes.map { "\($0.values.count)" }.joined(separator: " × ")
        let message =
          "the matrix of job '\(job.name)' would make \(count) instances (\(sizes)"
          + (matrix.include.isEmpty ? "" : " + \(matrix.include.count) included")
          + "); at most \(instanceLimit) are allowed"
        diagnostics.append(Diagnostic(at: matrix.location, message))
        areKept = false
        continue
      }
      guard total + bound <= jobLimit else {
        let message =
          "with the \(bound) instances of job '\(job.name)' the manifest would hold more than "
          + "\(jobLimit) jobs; at most \(jobLimit) are allowed"
        diagnostics.append(Diagnostic(at: matrix.location, message))
        areKept = false
        continue
      }
      total += bound
    }
    return (areKept, areKept ? total : 0)
  }

  /// The product of the axes' sizes plus the `include`s; nil when it overflows.
  static func instanceBound(_ matrix: MatrixSpec) -> Int? {
    var product = 1
    for axis in matrix.axes {
      let (next, overflow) = product.multipliedReportingOverflow(by: axis.values.count)
      guard !overflow else { return nil }
      product = next
    }
    let (bound, overflow) = product.addingReportingOverflow(matrix.include.count)
    return overflow ? nil : bound
  }

  // Maps the walk: an odometer over the axes' value indices (the last axis turns fastest)
  // yields the product in order; each combination an `exclude` entry matches is left out
  // and the entry marked as used; then each `include` is checked against what is there.
  private static func instances(
    of job: JobSpec, _ matrix: MatrixSpec, reportingTo diagnostics: inout DiagnosticCollector
  ) -> [JobSpec] {
    let axes = matrix.axes.map(\.name.value)
    let axisIndex = Dictionary(axes.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    let valueIndex = matrix.axes.map { axis in
      Dictionary(axis.values.enumerated().map { ($1.value, $0) }, uniquingKeysWith: { first, _ in first })
    }
    // Each exclude entry as (axis, value index) pairs; nil when it names a value the axis lacks.
    let excludes: [[(axis: Int, value: Int)]?] = matrix.exclude.map { entry in
      var pairs: [(axis: Int, value: Int)] = []
      for (axis, value) in entry.values {
        guard let a = axisIndex[axis.value], let v = valueIndex[a][value.value] else { return nil }
        pairs.append((a, v))
      }
      return pairs
    }
    var excludeUsed = [Bool](repeating: false, count: excludes.count)
    func excluded(_ combination: [Int]) -> Bool {
      var isExcluded = false
      for (index, pairs) in excludes.enumerated() {
        guard let pairs, pairs.allSatisfy({ combination[$0.axis] == $0.value }) else { continue }
        excludeUsed[index] = true
        isExcluded = true
      }
      return isExcluded
    }

    let expander = InstanceMaker(job: job, axes: axes, axisIndex: axisIndex)
    var made: [JobSpec] = []
    var combination = [Int](repeating: 0, count: matrix.axes.count)
    var productCount = 0
    walk: while true {
      productCount += 1
      if !excluded(combination) {
        made.append(expander.instance(values: combination.enumerated().map { matrix.axes[$0].values[$1].value }))
      }
      var axis = combination.count - 1
      while axis >= 0 {
        combination[axis] += 1
        if combination[axis] < matrix.axes[axis].values.count { continue walk }
        combination[axis] = 0
        axis -= 1
      }
      break
    }
    for (index, entry) in matrix.exclude.enumerated() where !excludeUsed[index] {
      let written = entry.values.map { "\($0.axis.value): \($0.value.value)" }.joined(separator: ", ")
      diagnostics.append(
        Diagnostic(
          .warning, at: entry.location, "exclude {\(written)} of job '\(job.name)' matches no combination"))
    }
    if made.isEmpty && productCount > 0 {
      diagnostics.append(
        Diagnostic(at: matrix.location, "the 'exclude' entries of job '\(job.name)' leave out every combination"))
    }
    var included: Set<[String]> = []
    for entry in matrix.include {
      var values = [String?](repeating: nil, count: axes.count)
      for (axis, value) in entry.values { axisIndex[axis.value].map { values[$0] = value.value } }
      guard values.allSatisfy({ $0 != nil }) else { continue }
      let complete = values.map { $0! }
      let indices = complete.enumerated().map { valueIndex[$0][$1] }
      let inProduct = indices.allSatisfy { $0 != nil } && !excluded(indices.map { $0! })
      guard !inProduct, included.insert(complete).inserted else {
        let name = MatrixInstance.name(template: job.name, values: complete)
        diagnostics.append(Diagnostic(at: entry.location, "this 'include' entry repeats instance '\(name)'"))
        continue
      }
      made.append(expander.instance(values: complete))
    }
    return made
  }

  /// Turns each dependency on a matrix job's plain name into one on each instance, and
  /// reports a bracketed name that is no instance of its matrix job, listing the instances.
  private static func resolveDependencies(
    of jobs: inout [JobSpec], templates: [String: Range<Int>], reportingTo diagnostics: inout DiagnosticCollector
  ) {
    var instanceNames: Set<String> = []
    for range in templates.values { for index in range { instanceNames.insert(jobs[index].name) } }
    for index in jobs.indices {
      let dependencies = jobs[index].dependencies
      guard dependencies.contains(where: { templates[$0.value] != nil || $0.value.hasSuffix("]") }) else { continue }
      var resolved: [Located<String>] = []
      resolved.reserveCapacity(dependencies.count)
      for dependency in dependencies {
        if let range = templates[dependency.value] {
          resolved += range.map { Located(jobs[$0].name, at: dependency.location) }
          continue
        }
        if let template = templateName(of: dependency.value), let range = templates[template],
          !instanceNames.contains(dependency.value)
        {
          if !range.isEmpty {
            diagnostics.append(unknownInstance(dependency, of: jobs[index].name, among: range.map { jobs[$0].name }))
          }
          continue
        }
        resolved.append(dependency)
      }
      jobs[index].dependencies = resolved
    }
  }

  /// `test` of `test[3.12,sqlite]`; nil for a name without brackets.
  static func templateName(of name: String) -> String? {
    guard name.hasSuffix("]"), let open = name.firstIndex(of: "[") else { return nil }
    return String(name[..<open])
  }

  private static func unknownInstance(_ dependency: Located<String>, of job: String, among names: [String])
    -> Diagnostic
  {
    let template = templateName(of: dependency.value) ?? dependency.value
    return Diagnostic(
      at: dependency.location,
      "unknown dependency '\(dependency.value)' of job '\(job)': job '\(template)' has no such instance; "
        + listing(instances: names))
  }

  /// `its instances are 'a' and 'b'`, or the first few and how many more.
  static func listing(instances names: [String]) -> String {
    let shown = names.prefix(instancesListed).map { "'\($0)'" }
    let more = names.count > instancesListed ? " and \(names.count - instancesListed) more" : ""
    if more.isEmpty {
      return "its instances are \(ManifestDecoder.listing(Array(shown), conjunction: "and"))"
    }
    return "its instances are \(shown.joined(separator: ", "))\(more)"
  }
}

/// Makes the instances of one matrix job from the job as written: its templated texts are
/// read once, and each instance only fills them in.
private struct InstanceMaker {
  let job: JobSpec
  let axes: [String]
  let axisIndex: [String: Int]
  let commands: [MatrixTemplate?]
  let completion: MatrixTemplate?
  let cwd: MatrixTemplate?
  let description: MatrixTemplate?
  let env: [MatrixTemplate?]
  let dependencies: [MatrixTemplate?]

  init(job: JobSpec, axes: [String], axisIndex: [String: Int]) {
    self.job = job
    self.axes = axes
    self.axisIndex = axisIndex
    commands = job.commands.map(Self.template)
    completion = job.completion.flatMap(Self.template)
    cwd = job.cwd.flatMap(Self.template)
    description = job.description.flatMap(Self.template)
    env = job.env.map { Self.template($0.value) }
    dependencies = job.dependencies.map { Self.template($0.value) }
  }

  private static func template(_ text: String) -> MatrixTemplate? {
    MatrixTemplate.mayHoldSubstitutions(text) ? MatrixTemplate(text) : nil
  }

  func instance(values: [String]) -> JobSpec {
    var instance = job
    instance.matrix = nil
    instance.name = MatrixInstance.name(template: job.name, values: values)
    instance.instance = MatrixInstance(template: job.name, axes: axes, values: values)
    let fill = { (template: MatrixTemplate) in
      template.filled { axis in axisIndex[String(axis)].map { values[$0] } }
    }
    for (index, template) in commands.enumerated() { if let template { instance.commands[index] = fill(template) } }
    if let completion { instance.completion = fill(completion) }
    if let cwd { instance.cwd = fill(cwd) }
    if let description { instance.description = fill(description) }
    for (index, template) in env.enumerated() { if let template { instance.env[index].value = fill(template) } }
    for (index, template) in dependencies.enumerated() {
      if let template { instance.dependencies[index].value = fill(template) }
    }
    return instance
  }
}
