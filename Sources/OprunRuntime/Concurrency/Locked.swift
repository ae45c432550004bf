/// A value threads share, reached only under its lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = ConditionLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    try lock.withLock { try body(&value) }
  }
}
