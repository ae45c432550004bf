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
        appendInstances(of: job, matrix, to: &jobs, reportingTo: &diagnostics)
      }
      templates[job.name] = start..<jobs.count
    }
    resolveDependencies(of: &jobs, templates: templates)
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
  // and the entry marked as used (one hash lookup per set of axes the entries name, see
  // ``MatrixExclusions``); then each `include` is checked against what is there.
  private static func appendInstances(
    of job: JobSpec, _ matrix: MatrixSpec, to made: inout [JobSpec],
    reportingTo diagnostics: inout DiagnosticCollector
  ) {
    let axes = matrix.axes.map(\.name.value)
    let axisIndex = Dictionary(axes.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    let valueIndex = matrix.axes.map { axis in
      Dictionary(axis.values.enumerated().map { ($1.value, $0) }, uniquingKeysWith: { first, _ in first })
    }
    // Each exclude entry as (axis, value index) pairs; nil when it names a value the axis lacks.
    let entries: [[(axis: Int, value: Int)]?] = matrix.exclude.map { entry in
      var pairs: [(axis: Int, value: Int)] = []
      for (axis, value) in entry.values {
        guard let a = axisIndex[axis.value], let v = valueIndex[a][value.value] else { return nil }
        pairs.append((a, v))
      }
      return pairs
    }
    var exclusions = MatrixExclusions(entries, axisSizes: matrix.axes.map(\.values.count))

    let expander = InstanceMaker(job: job, axes: axes, axisIndex: axisIndex)
    let firstMade = made.count
    var combination = [Int](repeating: 0, count: matrix.axes.count)
    var productCount = 0
    walk: while true {
      productCount += 1
      if !exclusions.leavesOut(combination) {
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
    for index in exclusions.unmatchedEntries {
      let entry = matrix.exclude[index]
      let written = entry.values.map { "\($0.axis.value): \($0.value.value)" }.joined(separator: ", ")
      diagnostics.append(
        Diagnostic(
          .warning, at: entry.location, "exclude {\(written)} of job '\(job.name)' matches no combination"))
    }
    if made.count == firstMade && productCount > 0 {
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
      let inProduct = indices.allSatisfy { $0 != nil } && !exclusions.wouldLeaveOut(indices.map { $0! })
      guard !inProduct, included.insert(complete).inserted else {
        let name = MatrixInstance.name(template: job.name, values: complete)
        diagnostics.append(Diagnostic(at: entry.location, "this 'include' entry repeats instance '\(name)'"))
        continue
      }
      made.append(expander.instance(values: complete))
    }
  }

  /// Turns each dependency on a matrix job's plain name into one on each of its instances.
  /// A bracketed name that is no instance is left for the graph to report as an unknown
  /// dependency (``GraphBuilder`` lists the instances there are), unless its matrix job
  /// made none: that matrix has been reported, and what names it is not reported again.
  private static func resolveDependencies(of jobs: inout [JobSpec], templates: [String: Range<Int>]) {
    let unmade = Set(templates.filter(\.value.isEmpty).keys)
    func isUnmadeInstance(_ name: String) -> Bool {
      !unmade.isEmpty && templateName(of: name).map(unmade.contains) == true
    }
    for index in jobs.indices {
      let dependencies = jobs[index].dependencies
      guard dependencies.contains(where: { templates[$0.value] != nil || isUnmadeInstance($0.value) }) else {
        continue
      }
      var resolved: [Located<String>] = []
      resolved.reserveCapacity(dependencies.count)
      for dependency in dependencies where !isUnmadeInstance(dependency.value) {
        guard let range = templates[dependency.value] else {
          resolved.append(dependency)
          continue
        }
        resolved += range.map { Located(jobs[$0].name, at: dependency.location) }
      }
      jobs[index].dependencies = resolved
    }
  }

  /// `test` of `test[3.12,sqlite]`; nil for a name without brackets.
  static func templateName(of name: String) -> String? {
    guard name.hasSuffix("]"), let open = name.firstIndex(of: "[") else { return nil }
    return String(name[..<open])
  }

  /// `its instances are 'a' and 'b'`, or the first few and how many more.
  static func listing(instances names: [String]) -> String {
    "its instances are " + Listing.bounded(names, limit: instancesListed, quoted: true)
  }
}

/// Makes the instances of one matrix job from the job as written: its templated texts are
/// read once into parts, and each instance only joins them.
private struct InstanceMaker {
  let job: JobSpec
  let axes: [String]
  let commands: [FillableText?]
  let completion: FillableText?
  let cwd: FillableText?
  let description: FillableText?
  let env: [FillableText?]
  let dependencies: [FillableText?]
  let inputs: [FillableText?]
  let outputs: [FillableText?]

  init(job: JobSpec, axes: [String], axisIndex: [String: Int]) {
    self.job = job
    self.axes = axes
    let compile = { (text: String) in FillableText(text, axisIndex: axisIndex) }
    commands = job.commands.map(compile)
    completion = job.completion.flatMap(compile)
    cwd = job.cwd.flatMap(compile)
    description = job.description.flatMap(compile)
    env = job.env.map { compile($0.value) }
    dependencies = job.dependencies.map { compile($0.value) }
    inputs = job.inputs.map { compile($0.value) }
    outputs = job.outputs.map { compile($0.value) }
  }

  func instance(values: [String]) -> JobSpec {
    var instance = job
    instance.matrix = nil
    instance.name = MatrixInstance.name(template: job.name, values: values)
    instance.instance = MatrixInstance(template: job.name, axes: axes, values: values)
    for (index, text) in commands.enumerated() { if let text { instance.commands[index] = text.filled(values) } }
    if let completion { instance.completion = completion.filled(values) }
    if let cwd { instance.cwd = cwd.filled(values) }
    if let description { instance.description = description.filled(values) }
    for (index, text) in env.enumerated() { if let text { instance.env[index].value = text.filled(values) } }
    for (index, text) in dependencies.enumerated() {
      if let text { instance.dependencies[index].value = text.filled(values) }
    }
    for (index, text) in inputs.enumerated() { if let text { instance.inputs[index].value = text.filled(values) } }
    for (index, text) in outputs.enumerated() { if let text { instance.outputs[index].value = text.filled(values) } }
    return instance
  }
}

/// A text with substitutions, as kept text and the index of the axis to put between.
private struct FillableText {
  enum Part {
    case text(Substring)
    case value(Int)
  }

  let parts: [Part]
  let keptLength: Int

  /// Nil for a text without substitutions, which every instance shares as it is. An axis
  /// the matrix lacks (reported) stays as written.
  init?(_ text: String, axisIndex: [String: Int]) {
    guard MatrixTemplate.mayHoldSubstitutions(text) else { return nil }
    var parts: [Part] = []
    var keptLength = 0
    for piece in MatrixTemplate(text).pieces {
      switch piece {
      case .text(let kept), .unsupported(let kept):
        parts.append(.text(kept))
        keptLength += kept.utf8.count
      case .axis(let name):
        guard let index = axisIndex[String(name)] else {
          parts.append(.text(Substring("${{ matrix.\(name) }}")))
          continue
        }
        parts.append(.value(index))
      case .variable(let name):
        // Replaced while decoding; one left is unknown, and reported there.
        parts.append(.text(Substring("${{ vars.\(name) }}")))
      }
    }
    self.parts = parts
    self.keptLength = keptLength
  }

  func filled(_ values: [String]) -> String {
    var length = keptLength
    for case .value(let index) in parts { length += values[index].utf8.count }
    var text = ""
    text.reserveCapacity(length)
    for part in parts {
      switch part {
      case .text(let kept): text += kept
      case .value(let index): text += values[index]
      }
    }
    return text
  }
}
