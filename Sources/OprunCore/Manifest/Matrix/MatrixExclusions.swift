/// A matrix's `exclude` entries, ready to tell whether a combination is left out (SPEC §11)
/// in one hash lookup per set of axes the entries name, whatever their number.
///
/// An entry leaves out every combination that has all of its values, and may name only some
/// axes: entries are grouped by the axes they name, and within a group hashed by their
/// values. A combination is looked up once per group, so expanding a matrix costs instances
/// × groups (at most 2^axes, in practice one or two), not instances × entries.
struct MatrixExclusions {
  /// Entries that name the same axes.
  private struct Group {
    /// The axes its entries name, in axis order, each with what its value index weighs in a key.
    var axes: [(axis: Int, stride: Int)]
    /// The key of a set of values (their indices, in mixed radix) → its bucket.
    var buckets: [Int: Int] = [:]

    func key(of combination: [Int]) -> Int {
      var key = 0
      for (axis, stride) in axes { key += combination[axis] * stride }
      return key
    }
  }

  private var groups: [Group] = []
  /// The entries (indices into `exclude`) of each bucket: more than one when an entry is
  /// written twice.
  private var bucketEntries: [[Int]] = []
  /// Whether a combination of the product had the bucket's values. Invariant: as long as
  /// `bucketEntries`.
  private var bucketMatched: [Bool] = []
  /// The entries that name a value their axis lacks (or one axis twice with two values):
  /// they match nothing.
  private var unmatchable: [Int] = []

  /// The entries of `exclude`, each as (axis, value index) pairs, nil for one that names a
  /// value its axis lacks; `axisSizes[a]` is how many values axis `a` has. The product of
  /// the sizes must fit in an `Int` (a matrix's bound is checked before it is expanded).
  init(_ entries: [[(axis: Int, value: Int)]?], axisSizes: [Int]) {
    var groupOfAxes: [[Int]: Int] = [:]
    for (index, pairs) in entries.enumerated() {
      guard let values = Self.valuesByAxis(pairs) else {
        unmatchable.append(index)
        continue
      }
      let axes = values.map(\.axis)
      let group: Int
      if let known = groupOfAxes[axes] {
        group = known
      } else {
        group = groups.count
        groupOfAxes[axes] = group
        var stride = 1
        var weighted: [(axis: Int, stride: Int)] = []
        for axis in axes.reversed() {
          weighted.append((axis, stride))
          stride *= axisSizes[axis]
        }
        groups.append(Group(axes: weighted.reversed()))
      }
      var key = 0
      for (pair, weighted) in zip(values, groups[group].axes) { key += pair.value * weighted.stride }
      if let bucket = groups[group].buckets[key] {
        bucketEntries[bucket].append(index)
      } else {
        groups[group].buckets[key] = bucketEntries.count
        bucketEntries.append([index])
        bucketMatched.append(false)
      }
    }
  }

  /// An entry's pairs sorted by axis, each axis once; nil when it matches nothing.
  private static func valuesByAxis(_ pairs: [(axis: Int, value: Int)]?) -> [(axis: Int, value: Int)]? {
    guard let pairs else { return nil }
    var sorted: [(axis: Int, value: Int)] = []
    for pair in pairs.sorted(by: { $0.axis < $1.axis }) {
      if let last = sorted.last, last.axis == pair.axis {
        guard last.value == pair.value else { return nil }
        continue
      }
      sorted.append(pair)
    }
    return sorted
  }

  /// Whether an entry leaves out `combination` (a value index per axis); every entry that
  /// does counts as having matched.
  mutating func leavesOut(_ combination: [Int]) -> Bool {
    var isLeftOut = false
    for group in groups {
      guard let bucket = group.buckets[group.key(of: combination)] else { continue }
      bucketMatched[bucket] = true
      isLeftOut = true
    }
    return isLeftOut
  }

  /// Whether an entry leaves out `combination`, without counting it as a match: an
  /// `include` asks this, and an include is no combination of the product.
  func wouldLeaveOut(_ combination: [Int]) -> Bool {
    groups.contains { $0.buckets[$0.key(of: combination)] != nil }
  }

  /// The entries that no combination passed to ``leavesOut(_:)`` matched, in order.
  var unmatchedEntries: [Int] {
    var unmatched = unmatchable
    for (bucket, matched) in bucketMatched.enumerated() where !matched { unmatched += bucketEntries[bucket] }
    return unmatched.sorted()
  }
}
