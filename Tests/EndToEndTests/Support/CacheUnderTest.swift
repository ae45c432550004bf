import Foundation
import Testing

/// Which kind of cache a test runs against.
enum CacheKind: String, CustomTestStringConvertible, Sendable {
  case folder
  case nginx
  var testDescription: String { rawValue }
}

/// A cache for one test: a folder of its own, or a real nginx serving a folder of its own
/// over WebDAV (`PUT` and `GET` of `/ac/KEY` and `/cas/SHA256`), stopped when the test ends.
final class CacheUnderTest: @unchecked Sendable {
  let kind: CacheKind
  /// The folder that holds what is stored (for nginx, its document root).
  let folder: Scratch
  let server: NginxServer?

  init(_ kind: CacheKind) throws {
    self.kind = kind
    folder = try Scratch()
    server = kind == .nginx ? try NginxServer(root: folder.path("root")) : nil
  }

  /// What `--cache` is given.
  var location: String { server?.url ?? folder.path("cache") }

  var arguments: [String] { ["--cache", location] }

  /// Where entries and blobs are, as files.
  var storeRoot: String { server == nil ? folder.path("cache") : folder.path("root") }

  private func files(under kind: String) -> [String] {
    let top = storeRoot + "/" + kind
    guard let walker = FileManager.default.enumerator(atPath: top) else { return [] }
    return walker.compactMap { $0 as? String }.map { top + "/" + $0 }.filter { path in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
        && !URL(fileURLWithPath: path).lastPathComponent.hasPrefix(".")
    }
  }

  func storedFileCount() throws -> Int { files(under: "ac").count + files(under: "cas").count }

  func storedBytes() throws -> Int {
    try (files(under: "ac") + files(under: "cas")).reduce(0) { total, path in
      total + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    }
  }

  /// Flips the first byte of every blob, keeping its name.
  func corruptEveryBlob() throws {
    for path in files(under: "cas") {
      var bytes = try #require(FileManager.default.contents(atPath: path))
      if bytes.isEmpty { bytes = Data([0]) } else { bytes[0] ^= 0xff }
      try bytes.write(to: URL(fileURLWithPath: path))
    }
  }

  /// Writes an entry under `key` that restores `content` at `path`, its blob stored as well.
  func craftEntry(key: String, path: String, content: String) throws {
    let bytes = Data(content.utf8)
    let digest = sha256(bytes)
    let blobPath = server == nil ? storeRoot + "/cas/" + digest.prefix(2) + "/" + digest : storeRoot + "/cas/" + digest
    let entryPath = server == nil ? storeRoot + "/ac/" + key.prefix(2) + "/" + key : storeRoot + "/ac/" + key
    for file in [blobPath, entryPath] {
      try FileManager.default.createDirectory(
        atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path, withIntermediateDirectories: true)
    }
    try bytes.write(to: URL(fileURLWithPath: blobPath))
    let entry: [String: Any] = [
      "format": "oprun-cache-entry", "version": 1, "duration": 1.5,
      "files": [["path": path, "mode": 0o644, "size": bytes.count, "sha256": digest]], "printed": [],
    ]
    try JSONSerialization.data(withJSONObject: entry).write(to: URL(fileURLWithPath: entryPath))
  }
}

/// The SHA-256 of `data` as lower-case hex, by `sha256sum`.
func sha256(_ data: Data) -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
  let input = Pipe()
  let output = Pipe()
  process.standardInput = input
  process.standardOutput = output
  try? process.run()
  input.fileHandleForWriting.write(data)
  try? input.fileHandleForWriting.close()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return String(text.prefix(64))
}

/// A real nginx (Debian's `nginx-core`, whose WebDAV module takes `PUT`) on a port of its own
/// on 127.0.0.1, serving `root`; stopped when released, however the test ended.
final class NginxServer: @unchecked Sendable {
  let url: String
  let port: Int
  private let folder: String
  private let process = Process()
  private var isStopped = false

  static let binary = "/usr/sbin/nginx"

  init(root: String, failing: Bool = false) throws {
    try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "nginx-core is not installed")
    folder = root + "-nginx"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    // A port of its own: the kernel picks a free one for a socket bound to port 0, which is
    // closed before nginx binds it (another test may take it between: then nginx fails, and
    // the test with it, rather than talking to a stranger).
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    close(socket)
    port = Int(UInt16(bigEndian: address.sin_port))
    url = "http://127.0.0.1:\(port)"
    let location =
      failing
      ? "location / { return 500; }"
      : "location / { dav_methods PUT DELETE; create_full_put_path on; client_max_body_size 0; }"
    let config = """
      user root;
      daemon off;
      master_process off;
      pid \(folder)/nginx.pid;
      error_log \(folder)/error.log;
      events { worker_connections 256; }
      http {
        log_format cache '$connection $request_method $uri $status "$http_authorization"';
        access_log \(folder)/access.log cache;
        client_body_temp_path \(folder)/body;
        proxy_temp_path \(folder)/proxy;
        fastcgi_temp_path \(folder)/fastcgi;
        uwsgi_temp_path \(folder)/uwsgi;
        scgi_temp_path \(folder)/scgi;
        server {
          listen 127.0.0.1:\(port);
          root \(root);
          \(location)
        }
      }
      """
    try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
    // In the foreground, a child of this test's own: stopped by a signal, reaped by `Process`.
    process.executableURL = URL(fileURLWithPath: Self.binary)
    process.arguments = ["-c", folder + "/nginx.conf", "-p", folder, "-e", folder + "/error.log"]
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    try waitUntil("nginx to listen on \(port)") { !process.isRunning || Self.accepts(port) }
    guard process.isRunning else {
      throw WaitFailure(
        what: "nginx to start: " + ((try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""))
    }
  }

  /// Whether something accepts a connection on `port` of 127.0.0.1.
  private static func accepts(_ port: Int) -> Bool {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    } == 0
  }

  /// How many requests nginx served, and how many connections they came on.
  var accessLog: String { (try? String(contentsOfFile: folder + "/access.log", encoding: .utf8)) ?? "" }

  /// Stops nginx now and waits until it is gone.
  func stop() {
    guard !isStopped else { return }
    isStopped = true
    // SIGKILL: the test process may block SIGTERM, and its children inherit the mask. The
    // pid nginx wrote is killed too, whatever `Process` believes of its child.
    if let text = try? String(contentsOfFile: folder + "/nginx.pid", encoding: .utf8),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    {
      kill(pid, SIGKILL)
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  deinit { stop() }
}
