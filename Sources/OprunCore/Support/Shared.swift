/// A value behind one reference that never changes, shared by every copy until one of them
/// sets a new value.
///
/// A struct that exists once per job or per event keeps the parts it rarely sets in one of
/// these: they cost a word where they are not set (every copy shares the one default), not
/// their full size. Reading a part reads through the reference; setting one makes a new box.
public final class Shared<Value: Sendable>: Sendable {
  public let value: Value

  public init(_ value: Value) {
    self.value = value
  }

  /// A box holding `value` with `change` made to it; this one is left as it is.
  public func changed(_ change: (inout Value) -> Void) -> Shared {
    var value = value
    change(&value)
    return Shared(value)
  }

  /// This box when its `part` already is `newValue` (the default, most often: nothing is
  /// allocated for it), else a box with `part` set to it.
  public func setting<Part: Equatable>(_ part: WritableKeyPath<Value, Part>, to newValue: Part) -> Shared {
    value[keyPath: part] == newValue ? self : changed { $0[keyPath: part] = newValue }
  }
}

extension Shared: Equatable where Value: Equatable {
  public static func == (lhs: Shared, rhs: Shared) -> Bool {
    lhs === rhs || lhs.value == rhs.value
  }
}
