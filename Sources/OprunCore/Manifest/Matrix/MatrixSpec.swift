/// A job's `matrix` as written (SPEC §11): its axes in manifest order, then the
/// combinations it leaves out and the ones it adds.
public struct MatrixSpec: Sendable {
  /// Where the `matrix` key is written: bounds on its size are reported there.
  public var location: SourceLocation
  /// The first axis varies slowest. Each has at least one value, no value twice.
  public var axes: [MatrixAxis]
  public var exclude: [MatrixCombination]
  /// Each names every axis once.
  public var include: [MatrixCombination]
  /// Whether decoding found a problem in it; such a matrix makes no instance, so that one
  /// mistake is not reported again by every job that names it.
  public var isBroken: Bool

  public init(
    location: SourceLocation, axes: [MatrixAxis] = [], exclude: [MatrixCombination] = [],
    include: [MatrixCombination] = [], isBroken: Bool = false
  ) {
    self.location = location
    self.axes = axes
    self.exclude = exclude
    self.include = include
    self.isBroken = isBroken
  }
}

/// One axis: a name and its values, each as written in the file (`3.10` stays `3.10`).
public struct MatrixAxis: Sendable {
  public var name: Located<String>
  public var values: [Located<String>]

  public init(name: Located<String>, values: [Located<String>]) {
    self.name = name
    self.values = values
  }
}

/// One entry of `exclude` or `include`: axis → value, in the order written.
public struct MatrixCombination: Sendable {
  public var location: SourceLocation
  public var values: [(axis: Located<String>, value: Located<String>)]

  public init(location: SourceLocation, values: [(axis: Located<String>, value: Located<String>)]) {
    self.location = location
    self.values = values
  }
}

/// What makes a job one instance of a matrix job: the template's name and the instance's
/// value of each axis, in axis order.
public struct MatrixInstance: Sendable, Hashable {
  /// The matrix job's own name: `test` for `test[3.12,sqlite]`.
  public var template: String
  /// Shared by every instance of one template.
  public var axes: [String]
  /// `values[i]` is the value of `axes[i]`.
  public var values: [String]

  public init(template: String, axes: [String], values: [String]) {
    self.template = template
    self.axes = axes
    self.values = values
  }

  /// `NAME[v1,v2,...]`.
  public static func name(template: String, values: [String]) -> String {
    var name = ""
    name.reserveCapacity(template.utf8.count + 2 + values.reduce(values.count) { $0 + $1.utf8.count })
    name += template
    name += "["
    for (index, value) in values.enumerated() {
      if index > 0 { name += "," }
      name += value
    }
    name += "]"
    return name
  }
}
