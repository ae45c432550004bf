import OprunCore

/// The `inputs` patterns that match no file now, for `oprun check` (SPEC §10): most often a
/// literal name that a pattern character changed, as `data[1].csv`, where `[1]` is a class
/// that matches `data1.csv` only.
///
/// Only the jobs that wait for no other job are looked at: what such a job reads must be
/// there before the run starts, so a pattern that matches nothing now matches nothing when
/// it runs. A job that waits for others may read what they write, declared or not, so no
/// look before the run can tell; it is never warned about.
public enum UnmatchedInputs {
  /// One warning per pattern, in manifest order, with where the pattern is written. The
  /// instances of a matrix job that match one pattern from one folder share a warning.
  public static func warnings(in graph: JobGraph) -> [Diagnostic] {
    var found: [(pattern: PathPattern, location: SourceLocation, job: JobNode, count: Int)] = []
    var foundAt: [Place: Int] = [:]
    for job in graph.jobs where job.dependencies.isEmpty && !job.inputs.isEmpty {
      let written = graph.manifest.jobs[job.id].inputs
      for index in FileSelection(.inputs(of: job, in: graph)).unmatchedPatterns {
        let pattern = job.inputs[index]
        let location = written.indices.contains(index) ? written[index].location : job.location
        let place = Place(text: pattern.text, location: location, folder: job.cwd)
        if let same = foundAt[place] {
          found[same].count += 1
        } else {
          foundAt[place] = found.count
          found.append((pattern, location, job, 1))
        }
      }
    }
    return found.map { pattern, location, job, count in
      var name = "job '\(job.name)'"
      if count > 1, let instance = job.instance { name = "job '\(instance.template)' (\(count) instances)" }
      return Diagnostic(.warning, at: location, message(pattern, of: name))
    }
  }

  /// A pattern as matched: its text, where it is written, and the folder it is matched from.
  private struct Place: Hashable {
    var text: String
    var location: SourceLocation
    var folder: String?
  }

  /// ``warnings(in:)`` as `oprun check` prints a manifest's warnings: `FILE:LINE:COLUMN: MESSAGE`.
  public static func warningLines(in graph: JobGraph) -> [String] {
    warnings(in: graph).map { warning in warning.location.map { "\($0): \(warning.message)" } ?? warning.message }
  }

  /// `job` is how the job is named: `job 'load'`.
  static func message(_ pattern: PathPattern, of job: String) -> String {
    let headline = "input '\(pattern.text)' of \(job) matches no file"
    guard holdsClass(pattern.body) else { return headline }
    return headline
      + "; '[...]' matches one character of a set: write '\(escapingBrackets(pattern.text))' for a name with brackets"
  }

  /// Whether `pattern` holds a `[` that is not escaped: a bracket expression.
  static func holdsClass(_ pattern: String) -> Bool {
    var escaped = false
    for character in pattern {
      if escaped {
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "[" {
        return true
      }
    }
    return false
  }

  /// `pattern` with each `[` and `]` that is not escaped escaped, so that it names them.
  static func escapingBrackets(_ pattern: String) -> String {
    var text = ""
    var escaped = false
    for character in pattern {
      if !escaped && (character == "[" || character == "]") { text.append("\\") }
      escaped = !escaped && character == "\\"
      text.append(character)
    }
    return text
  }
}
