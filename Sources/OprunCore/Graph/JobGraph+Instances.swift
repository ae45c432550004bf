extension JobGraph {
  /// Each job's place among the instances of its matrix job, 0 first, in manifest order; nil
  /// for a job without a matrix. A matrix job's instances lie next to one another (SPEC §11).
  public func instanceIndices() -> [Int?] {
    var indices: [Int?] = Array(repeating: nil, count: jobs.count)
    var next = 0
    for id in jobs.indices {
      guard let template = jobs[id].instance?.template else { continue }
      next = id > 0 && jobs[id - 1].instance?.template == template ? next + 1 : 0
      indices[id] = next
    }
    return indices
  }
}
