extension GraphBuilder {
  /// Reports the `inputs` and `outputs` no run could honour (SPEC §10): a pattern that can
  /// only match inside the manifest's `.oprun/`, and an output another job declares too —
  /// two jobs that write one file put each other out of date on every run.
  ///
  /// Outputs are compared as written, without the file system: two outputs are one when
  /// their paths are equal once the jobs' `cwd`s are put in front and `.`, `..` and repeated
  /// slashes are resolved, or when one lies under the other (a path that names a folder
  /// stands for every file under it). A pattern with a wildcard is not compared: whether two
  /// of them meet depends on files that do not exist yet. A job whose outputs remove
  /// something with `!` is not taken to write everything under the folders it names.
  ///
  /// The instances of a matrix job share their patterns' places: each place is reported
  /// once, not once per instance.
  mutating func checkFilePaths(_ jobs: [JobNode]) {
    var claims = OutputClaims()
    var reported: Set<SourceLocation> = []
    func report(_ message: @autoclosure () -> String, at location: SourceLocation) {
      if reported.insert(location).inserted { diagnostics.append(Diagnostic(at: location, message())) }
    }
    for (spec, node) in zip(manifest.jobs, jobs) {
      for input in spec.inputs {
        guard let pattern = try? PathPattern.parse(input.value).get(), !pattern.isExclusion,
          pattern.literalFolder(writtenCwd: node.writtenCwd).isInStateFolder
        else { continue }
        report(
          "input '\(input.value)' of job '\(node.name)' lies inside '.oprun/', which is never an input",
          at: input.location)
      }
      let removesOutputs = spec.outputs.contains { $0.value.hasPrefix("!") }
      for output in spec.outputs {
        guard let pattern = try? PathPattern.parse(output.value).get(), !pattern.isExclusion else { continue }
        let path = pattern.literalFolder(writtenCwd: node.writtenCwd)
        if path.isInStateFolder {
          let message =
            "output '\(output.value)' of job '\(node.name)' lies inside '.oprun/', which oprun keeps for its "
            + "records; it would never be found"
          report(message, at: output.location)
          continue
        }
        guard pattern.isLiteral else { continue }
        let claim = OutputClaims.Claim(job: node.id, text: output.value, holdsFolder: !removesOutputs)
        if let clash = claims.clash(of: claim, at: path) {
          report(clashMessage(output.value, of: node.name, clash), at: output.location)
        }
        claims.add(claim, at: path)
      }
    }
  }

  private func clashMessage(_ text: String, of job: String, _ clash: OutputClaims.Clash) -> String {
    let other = "job '\(manifest.jobs[clash.claim.job].name)'"
    switch clash.kind {
    case .same:
      let spelling = clash.claim.text == text ? "" : " (as '\(clash.claim.text)')"
      return "output '\(text)' of job '\(job)' is also an output of \(other)\(spelling)"
    case .under: return "output '\(text)' of job '\(job)' lies under output '\(clash.claim.text)' of \(other)"
    case .holds: return "output '\(text)' of job '\(job)' holds output '\(clash.claim.text)' of \(other)"
    }
  }
}

/// The literal outputs declared so far, by path, and for each folder above one of them the
/// first output under it: whether a new output meets an earlier job's costs one lookup per
/// component of its path.
struct OutputClaims {
  struct Claim {
    var job: JobID
    /// As written.
    var text: String
    /// It stands for every file under it when it is a folder: its job removes nothing with `!`.
    var holdsFolder: Bool
  }

  struct Clash {
    enum Kind { case same, under, holds }
    var kind: Kind
    /// The earlier output it meets.
    var claim: Claim
  }

  private var byPath: [WrittenPath: Claim] = [:]
  /// Under each folder, the first output declared below it.
  private var firstBelow: [WrittenPath: Claim] = [:]

  /// The earlier output of another job that `claim` meets, if any: the same path first,
  /// then a folder it lies under, then an output under it.
  func clash(of claim: Claim, at path: WrittenPath) -> Clash? {
    if let same = byPath[path], same.job != claim.job { return Clash(kind: .same, claim: same) }
    for folder in path.ancestors {
      if let above = byPath[folder], above.job != claim.job, above.holdsFolder {
        return Clash(kind: .under, claim: above)
      }
    }
    if claim.holdsFolder, let below = firstBelow[path], below.job != claim.job {
      return Clash(kind: .holds, claim: below)
    }
    return nil
  }

  mutating func add(_ claim: Claim, at path: WrittenPath) {
    if byPath[path] == nil { byPath[path] = claim }
    for folder in path.ancestors where firstBelow[folder] == nil { firstBelow[folder] = claim }
  }
}
