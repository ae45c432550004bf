import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// Where the socket lives, who may use its folder, and what happens to the file: created
/// 0600 in a 0700 folder, a stale one replaced, removed when the channel closes.
@Suite struct ControlFolderTests {
  @Test func theFolderIsXDGRuntimeDirsOrTmpsByUid() {
    #expect(ControlFolder.path(uid: 1000, runtimeDirectory: "/run/user/1000") == "/run/user/1000/oprun")
    #expect(ControlFolder.path(uid: 1000, runtimeDirectory: "/run/user/1000/") == "/run/user/1000/oprun")
    #expect(ControlFolder.path(uid: 1000, runtimeDirectory: nil) == "/tmp/oprun-1000")
    #expect(ControlFolder.path(uid: 1000, runtimeDirectory: "relative") == "/tmp/oprun-1000")
    #expect(ControlFolder.socketPath(in: "/tmp/oprun-0", pid: 42) == "/tmp/oprun-0/42.sock")
  }

  @Test func theFolderIsMade0700AndTheSocket0600NamedByOprunsPid() throws {
    let harness = try ChannelHarness()
    #expect(harness.channel.path == harness.folder + "/\(getpid()).sock")
    #expect(modeOf(harness.folder) == S_IFDIR | 0o700)
    #expect(modeOf(harness.channel.path) == S_IFSOCK | 0o600)
  }

  /// What `prepare` says of `folder` after `arrange` made it, and whether a channel opens there.
  private func refusal(_ arrange: (String) throws -> Void) throws -> (problem: String?, opened: Bool) {
    let parent = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let folder = parent + "/oprun"
    try arrange(folder)
    let opened = ControlChannel.open(graph: makeGraph(jobs: ["a"]), loop: EventLoop(), folder: folder) { _ in }
    let problem = ControlFolder.prepare(folder)
    if case .success(let channel) = opened { channel.close() }
    return (problem, (try? opened.get()) != nil)
  }

  @Test func aFolderOfAnotherUserIsRefused() throws {
    let result = try refusal { folder in
      mkdir(folder, 0o700)
      try #require(chown(folder, 65534, 65534) == 0)
    }
    #expect(result.problem?.contains("belongs to uid 65534, not to this user") == true, "\(result)")
    #expect(!result.opened)
  }

  @Test func aSymbolicLinkInPlaceOfTheFolderIsRefusedEvenToAFolderOfOurs() throws {
    let result = try refusal { folder in
      mkdir(folder + "-real", 0o700)
      try #require(symlink(folder + "-real", folder) == 0)
    }
    #expect(result.problem?.hasSuffix("is a symbolic link, not a folder of this user") == true, "\(result)")
    #expect(!result.opened)
  }

  @Test func aFolderOpenToOtherUsersIsRefused() throws {
    let result = try refusal { folder in
      mkdir(folder, 0o700)
      chmod(folder, 0o755)
    }
    #expect(result.problem?.hasSuffix("has mode 0755, open to other users (0700 expected)") == true, "\(result)")
    #expect(!result.opened)
  }

  @Test func aFileInPlaceOfTheFolderIsRefused() throws {
    let result = try refusal { folder in _ = FileManager.default.createFile(atPath: folder, contents: nil) }
    #expect(result.problem?.hasSuffix("is not a folder") == true, "\(result)")
    #expect(!result.opened)
  }

  @Test func aFolderWhoseParentIsMissingIsRefused() throws {
    let result = try refusal { folder in
      try FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent)
    }
    #expect(result.problem?.contains("cannot create") == true, "\(result)")
    #expect(!result.opened)
  }

  @Test func aStaleSocketOfAKilledRunIsReplaced() throws {
    let parent = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let folder = parent + "/oprun"
    mkdir(folder, 0o700)
    let path = ControlFolder.socketPath(in: folder, pid: getpid())
    // A listener closed without removing its file: what a run killed by SIGKILL leaves.
    let dead = try UnixSocket.listen(at: path, backlog: 1).get()
    close(dead)
    #expect(UnixSocket.isStale(path))

    let loop = EventLoop()
    let channel = try ControlChannel.open(graph: makeGraph(jobs: ["a"]), loop: loop, folder: folder) { command in
      if case .control(_, let reply) = command { reply.send(ControlAnswer(ok: true)) }
    }.get()
    #expect(!UnixSocket.isStale(path))
    let client = try TestClient(path: path, loop: loop, reading: true)
    client.send(#"{"command":"status"}"# + "\n")
    runLoop(loop) { client.isClosed }
    #expect(client.text == #"{"ok":true}"# + "\n")
    channel.close()
  }

  @Test func aLiveSocketAtThePathIsLeftAlone() throws {
    let parent = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let folder = parent + "/oprun"
    mkdir(folder, 0o700)
    let path = ControlFolder.socketPath(in: folder, pid: getpid())
    let live = try UnixSocket.listen(at: path, backlog: 1).get()
    defer { close(live) }

    let opened = ControlChannel.open(graph: makeGraph(jobs: ["a"]), loop: EventLoop(), folder: folder) { _ in }
    guard case .failure(let error) = opened else {
      Issue.record("a second channel opened at a live socket's path")
      return
    }
    #expect(error.description.hasSuffix("Address already in use"))
    #expect(!UnixSocket.isStale(path))
  }

  @Test func theSocketIsRemovedWhenTheChannelStopsListeningAndNoOneCanConnectAnyMore() throws {
    let harness = try ChannelHarness()
    let path = harness.channel.path
    #expect(fileExists(path))
    harness.channel.stopListening()
    #expect(!fileExists(path))
    guard case .missing = UnixSocket.connect(path, nonblocking: true) else {
      Issue.record("connected after the channel stopped listening")
      return
    }
  }

  @Test func theSocketIsRemovedWhenTheChannelIsReleased() throws {
    let parent = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    var channel = try? ControlChannel.open(graph: makeGraph(jobs: ["a"]), loop: EventLoop(), folder: parent + "/oprun")
    {
      _ in
    }.get()
    let path = try #require(channel?.path)
    #expect(fileExists(path))
    channel = nil
    #expect(!fileExists(path))
  }

  @Test func aFilePutInTheSocketsPlaceIsNotRemoved() throws {
    let harness = try ChannelHarness()
    let path = harness.channel.path
    unlink(path)
    _ = FileManager.default.createFile(atPath: path, contents: Data("someone else's".utf8))
    harness.channel.close()
    #expect(fileExists(path))
  }

  @Test func theSocketsOfAFolderAreListedByPid() throws {
    let parent = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: parent) }
    for name in ["12.sock", "3.sock", "x.sock", "07.sock", "12.sock.old", "-1.sock"] {
      _ = FileManager.default.createFile(atPath: parent + "/" + name, contents: nil)
    }
    #expect(ControlFolder.sockets(in: parent).map(\.pid) == [3, 12])
    #expect(ControlFolder.sockets(in: parent).first?.path == parent + "/3.sock")
    #expect(ControlFolder.sockets(in: parent + "/missing").isEmpty)
    chown(parent, 65534, 65534)
    #expect(ControlFolder.sockets(in: parent).isEmpty)
  }
}
