/// Where grouped mode keeps a job's output until it prints the job's block.
public struct GroupedOutputStorage: Sendable, Equatable {
  /// Bytes of one job's output kept in memory; the rest goes to a temporary file.
  public var memoryPerJob: Int
  /// Where the temporary files are made: the first folder that can hold one.
  public var folders: [String]

  public init(memoryPerJob: Int, folders: [String]) {
    self.memoryPerJob = memoryPerJob
    self.folders = folders
  }

  /// 1 MiB per job in memory (ninja-sized compiler output never reaches a file), the rest in
  /// `$TMPDIR`, `/var/tmp` or `/tmp`.
  public static var standard: GroupedOutputStorage {
    GroupedOutputStorage(memoryPerJob: 1 << 20, folders: UnnamedFile.defaultFolders())
  }
}

/// The output of one job kept for its next block in grouped mode: its first bytes in
/// memory, up to the storage's bound, and the rest in an unnamed temporary file, so that a
/// job writing hundreds of megabytes costs oprun little memory. What cannot go to a file
/// (none can be made, or a write fails) is kept in memory after all: output is never lost.
struct KeptOutput {
  /// Bytes gathered before one write to the file.
  static let fileWriteSize = 64 << 10

  /// The first bytes, up to the memory bound. Invariant: nothing is in `file` or `rest`
  /// unless one more byte would have passed the bound.
  private var head: [UInt8] = []
  /// The bytes after `head`, once there is a file.
  private var file: SpillFile?
  /// The bytes after those: waiting to be written to the file (fewer than
  /// `fileWriteSize`), or all the rest once the file failed.
  private var rest: [UInt8] = []
  private var fileFailed = false
  /// The last byte kept; nil while nothing is.
  private(set) var lastByte: UInt8?

  var isEmpty: Bool { lastByte == nil }

  /// Bytes kept in memory: the head, and what waits for the file or could not go to it.
  var memoryHeld: Int { head.count + rest.count }

  /// Whether part of the output is in a file.
  var isInFile: Bool { file != nil }

  /// Keeps `text`; returns why it could not go to a file, the first time it could not.
  mutating func append(_ text: [UInt8], storage: GroupedOutputStorage) -> String? {
    guard let last = text.last else { return nil }
    lastByte = last
    if file == nil, rest.isEmpty, !fileFailed, head.count + text.count <= storage.memoryPerJob {
      head.append(contentsOf: text)
      return nil
    }
    rest.append(contentsOf: text)
    guard !fileFailed, rest.count >= Self.fileWriteSize else { return nil }
    return writeRest(storage: storage)
  }

  /// Writes the bytes kept, in order, to `sink`; those in the file are read back a piece at
  /// a time as the sink's descriptor takes them.
  func write(to sink: OutputSink) {
    sink.write(head)
    if let file, file.length > 0 { sink.write(file, from: 0, count: file.length) }
    sink.write(rest)
  }

  private mutating func writeRest(storage: GroupedOutputStorage) -> String? {
    if file == nil {
      switch SpillFile.create(inFirstOf: storage.folders) {
      case .success(let created): file = created
      case .failure(let error): return giveUpFile(error)
      }
    }
    let (written, error) = rest.withUnsafeBytes { file!.append($0) }
    rest.removeFirst(written)
    guard let error else { return nil }
    return giveUpFile(error)
  }

  private mutating func giveUpFile(_ error: SystemError) -> String {
    fileFailed = true
    return "cannot keep a job's output in a temporary file (\(error)); it is kept in memory"
  }
}
