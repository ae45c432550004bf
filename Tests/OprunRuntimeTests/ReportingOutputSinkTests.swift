import Foundation
import OprunRuntime
import Testing

@Suite struct ReportingOutputSinkTests {
  @Test func bufferedWritesReachTheDescriptorOnlyWhenFlushed() {
    let capture = CapturedOutput()
    capture.sink.write("one\n")
    capture.sink.write(Array("two\n".utf8))
    #expect(capture.text == "")
    capture.sink.flush()
    #expect(capture.text == "one\ntwo\n")
  }

  @Test func lineBufferedSinkFlushesAtEveryNewline() {
    let capture = CapturedOutput(lineBuffered: true)
    capture.sink.write("partial")
    #expect(capture.text == "")
    capture.sink.write(" line\n")
    #expect(capture.text == "partial line\n")
  }

  @Test func fillingTheBufferWritesItOutInOrder() {
    let capture = CapturedOutput(capacity: 8)
    capture.sink.write("abcde")
    capture.sink.write("fghij")
    #expect(capture.text == "abcde")
    capture.sink.write(String(repeating: "x", count: 20))
    #expect(capture.text == "abcdefghij" + String(repeating: "x", count: 20))
  }

  @Test func everyByteArrivesThroughAPipeFasterThanItsReader() async throws {
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
    let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let reader = Task.detached { () -> [UInt8] in
      var received: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, 4096) }
        if count <= 0 { break }
        received.append(contentsOf: chunk[..<count])
      }
      return received
    }
    let sink = OutputSink(fileDescriptor: writeEnd, capacity: 1000)
    for start in stride(from: 0, to: payload.count, by: 777) {
      sink.write(Array(payload[start..<min(start + 777, payload.count)]))
    }
    sink.flush()
    close(writeEnd)
    let received = await reader.value
    close(readEnd)
    #expect(received == payload)
    #expect(!sink.isBroken)
  }

  @Test func aClosedReaderBreaksTheSinkWithoutStoppingTheWriter() {
    signal(SIGPIPE, SIG_IGN)
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    close(descriptors[0])
    let sink = OutputSink(fileDescriptor: descriptors[1])
    sink.write("nobody reads this\n")
    sink.flush()
    #expect(sink.failure == EPIPE)
    sink.write("dropped\n")
    sink.flush()
    #expect(sink.isBroken)
    close(descriptors[1])
  }
}
