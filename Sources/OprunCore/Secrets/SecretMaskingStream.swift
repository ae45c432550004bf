/// Masks the secrets in one stream of output (a job's pipe), read in chunks of any size: a
/// secret that one write ends and the next begins is masked as if it came in one piece.
///
/// Each chunk's bytes are passed on at once, except the last few that may be the beginning
/// of a secret: those (fewer than the longest secret, and never a line end or anything
/// before it) wait for the next chunk, or for ``finish(_:)``. Overlapping or adjacent
/// secrets become one `***`. The work is one table lookup per byte.
public struct SecretMaskingStream {
  private let patterns: SecretPatterns
  /// The automaton's state after the last byte read.
  private var state: Int32 = 0
  /// Invariant: the bytes read and not yet passed on, the stream's offsets `base..<base + held.count`.
  private var held: [UInt8] = []
  private var base = 0
  /// Invariant: the masked runs not wholly passed on, in order, neither overlapping nor
  /// adjacent, as stream offsets; only the first may have begun before `base`, and then its
  /// `***` has been passed on.
  private var runs: [(start: Int, end: Int)] = []
  private var firstRunShown = false
  /// Where the last run passed on whole ended: a secret found later that overlaps it or
  /// follows it at once continues its `***`.
  private var shownRunEnd = -1
  private var output: [UInt8] = []

  public init(_ patterns: SecretPatterns) {
    self.patterns = patterns
  }

  /// Reads `chunk` and passes on, in one call, everything that can be decided.
  public mutating func mask(_ chunk: ArraySlice<UInt8>, _ deliver: (ArraySlice<UInt8>) -> Void) {
    let chunkBase = base + held.count
    scan(chunk, from: chunkBase)
    let total = chunkBase + chunk.count
    var limit = total - Int(patterns.depth[Int(state)])
    for run in runs where run.start <= limit && run.end > limit { limit = run.end }
    pass(upTo: limit, chunk: chunk, chunkBase: chunkBase, deliver)
  }

  /// Passes on whatever is held: the stream ended, or its partial line is shown now.
  /// The next chunk is read as the start of a new stream.
  public mutating func finish(_ deliver: (ArraySlice<UInt8>) -> Void) {
    let end = base + held.count
    pass(upTo: end, chunk: [], chunkBase: end, deliver)
    state = 0
  }

  /// Runs the automaton over `chunk`, recording where secrets end.
  private mutating func scan(_ chunk: ArraySlice<UInt8>, from chunkBase: Int) {
    var state = self.state
    var found: [(start: Int, end: Int)] = []
    patterns.transitions.withUnsafeBufferPointer { transitions in
      patterns.matchLength.withUnsafeBufferPointer { matchLength in
        chunk.withUnsafeBufferPointer { bytes in
          for index in 0..<bytes.count {
            state = transitions[Int(state) << 8 | Int(bytes[index])]
            let length = matchLength[Int(state)]
            if length != 0 {
              let end = chunkBase + index + 1
              found.append((end - Int(length), end))
            }
          }
        }
      }
    }
    self.state = state
    for run in found { add(run) }
  }

  /// A secret found at `run`: joined with every pending run it overlaps or touches — a long
  /// secret found later may begin before several shorter ones found first — and with the run
  /// last passed on, whose `***` then stands for it too.
  private mutating func add(_ run: (start: Int, end: Int)) {
    var run = run
    while let last = runs.last, run.start <= last.end {
      run = (min(last.start, run.start), max(last.end, run.end))
      runs.removeLast()
    }
    if runs.isEmpty, run.start <= shownRunEnd { firstRunShown = true }
    runs.append(run)
  }

  /// Passes on the stream's bytes below `limit` (held ones, then the chunk's), each masked
  /// run as one `***`, and holds the rest.
  private mutating func pass(
    upTo limit: Int, chunk: ArraySlice<UInt8>, chunkBase: Int, _ deliver: (ArraySlice<UInt8>) -> Void
  ) {
    guard limit > base else {
      held.append(contentsOf: chunk)
      return
    }
    if runs.isEmpty && held.isEmpty {
      // Nothing masked and nothing held: the chunk's own bytes, without a copy.
      deliver(chunk[chunk.startIndex..<chunk.startIndex + (limit - chunkBase)])
      held.append(contentsOf: chunk[(chunk.startIndex + limit - chunkBase)...])
      base = limit
      return
    }
    output.removeAll(keepingCapacity: true)
    var position = base
    var consumedRuns = 0
    for run in runs {
      guard run.start < limit else { break }
      copy(from: position, to: run.start, chunk: chunk, chunkBase: chunkBase)
      if !(consumedRuns == 0 && firstRunShown) { output.append(contentsOf: SecretPatterns.replacement) }
      position = max(position, min(run.end, limit))
      if run.end <= limit {
        consumedRuns += 1
        firstRunShown = false
        shownRunEnd = run.end
      } else {
        firstRunShown = true
        break
      }
    }
    runs.removeFirst(consumedRuns)
    copy(from: position, to: limit, chunk: chunk, chunkBase: chunkBase)
    var rest: [UInt8] = []
    if limit < chunkBase {
      rest.append(contentsOf: held[(limit - base)...])
      rest.append(contentsOf: chunk)
    } else {
      rest.append(contentsOf: chunk[(chunk.startIndex + limit - chunkBase)...])
    }
    held = rest
    base = limit
    if !output.isEmpty { deliver(output[...]) }
  }

  /// Appends the stream's bytes `from..<to` (below `limit`), from the held bytes and the chunk.
  private mutating func copy(from: Int, to: Int, chunk: ArraySlice<UInt8>, chunkBase: Int) {
    guard to > from else { return }
    if from < chunkBase {
      output.append(contentsOf: held[(from - base)..<(min(to, chunkBase) - base)])
    }
    if to > chunkBase {
      let start = max(from, chunkBase) - chunkBase + chunk.startIndex
      output.append(contentsOf: chunk[start..<(to - chunkBase + chunk.startIndex)])
    }
  }
}
