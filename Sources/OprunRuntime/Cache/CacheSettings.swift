import Glibc
import OprunCore

/// Which cache a run uses (SPEC §14), from the command line, `OPRUN_CACHE` and the manifest's
/// `cache`, in that order; nil when none is configured, or `--no-cache`.
public struct CacheSettings: Sendable, Equatable {
  public enum Place: Sendable, Equatable {
    /// An absolute folder.
    case folder(String)
    /// A server speaking the HTTP cache protocol, without a trailing `/`.
    case server(String)
  }

  public var place: Place
  public var readOnly: Bool
  /// Bytes a folder is trimmed to after each run.
  public var maxSize: Int?

  public init(place: Place, readOnly: Bool = false, maxSize: Int? = nil) {
    self.place = place
    self.readOnly = readOnly
    self.maxSize = maxSize
  }

  /// The cache `option` (`--cache PATH|URL`) or else `environment` (`OPRUN_CACHE`) or else the
  /// manifest's `section` names, read-only when `readOnly` (`--cache-read-only`) or the
  /// manifest says; a relative folder given on the command line or in the environment is
  /// taken from the working folder, one in the manifest from the manifest's folder.
  public static func resolve(
    option: String?, environment: String?, section: CacheSection?, readOnly: Bool, disabled: Bool,
    manifestFolder: String
  ) -> CacheSettings? {
    guard !disabled else { return nil }
    let given = [option, environment].compactMap { $0 }.first { !$0.isEmpty }
    let place: Place
    if let given {
      place = Self.place(given, from: AbsolutePath.of("."))
    } else if let section {
      if let url = section.url {
        place = .server(Self.trimmed(url))
      } else {
        place = Self.place(section.path ?? Self.defaultFolder, from: manifestFolder)
      }
    } else {
      return nil
    }
    return CacheSettings(place: place, readOnly: readOnly || section?.readOnly == true, maxSize: section?.maxSize)
  }

  /// The store it names.
  var store: any CacheStore { store(lookingOnly: false) }

  /// The store it names; `lookingOnly`: what it is asked marks nothing used (`-n`).
  func store(lookingOnly: Bool) -> any CacheStore {
    switch place {
    case .folder(let path):
      FolderCacheStore(
        root: path, maxSize: maxSize, marksUse: !lookingOnly,
        verifiedBlobs: lookingOnly ? nil : FolderCacheStore.verifiedBlobsOfThisUser())
    case .server(let url): HTTPCacheStore.fromEnvironment(url: url)
    }
  }

  /// `~/.cache/oprun`, or `oprun` in `XDG_CACHE_HOME`.
  static var defaultFolder: String {
    if let home = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), home.hasPrefix("/") { return home + "/oprun" }
    return "~/.cache/oprun"
  }

  private static func place(_ text: String, from folder: String) -> Place {
    // Any URL is a server's (one of another scheme is refused when asked), never a folder
    // named `ftp:` in the working folder.
    if text.contains("://") { return .server(trimmed(text)) }
    var path = text
    if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }) {
      path = home + path.dropFirst()
    }
    return .folder(LexicalPath.resolve(path, from: folder))
  }

  private static func trimmed(_ url: String) -> String {
    var url = url
    while url.hasSuffix("/") { url.removeLast() }
    return url
  }
}
