import OprunRuntime
import Testing

@Test func versionIsSemantic() {
  #expect(oprunVersion.split(separator: ".").count == 3)
}
