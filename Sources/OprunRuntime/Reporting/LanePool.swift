/// Lanes of a timeline: a job takes the lowest free lane when it starts and gives it back
/// when it stops, so that jobs that run at the same time never share a lane.
struct LanePool {
  /// Invariant: `busy.count == peak`; lanes are `0..<peak`.
  private var busy: [Bool] = []

  /// The most lanes ever in use at once.
  var peak: Int { busy.count }

  mutating func acquire() -> Int {
    if let free = busy.firstIndex(of: false) {
      busy[free] = true
      return free
    }
    busy.append(true)
    return busy.count - 1
  }

  mutating func release(_ lane: Int) {
    guard busy.indices.contains(lane) else { return }
    assert(busy[lane], "lane \(lane) released twice")
    busy[lane] = false
  }
}
