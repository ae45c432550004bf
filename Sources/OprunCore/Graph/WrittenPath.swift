/// A path written in a job, resolved as text so that two spellings of one path compare
/// equal without asking the file system: the job's written `cwd` put in front, then `.`,
/// `..` and repeated slashes resolved. Links are not followed, so two paths that meet only
/// through a link stay apart.
struct WrittenPath: Hashable {
  /// It starts at the root; otherwise it is relative to the manifest's folder.
  var isAbsolute: Bool
  /// A relative path may begin with `..` (above the manifest's folder); an absolute one never does.
  var names: [Substring]

  /// `names` (a path's components, relative to where the job runs) in a job whose `cwd`,
  /// as written, is `writtenCwd` (relative to the manifest's folder unless absolute).
  init(_ names: some Sequence<Substring>, writtenCwd: String?, isAbsolute pathIsAbsolute: Bool) {
    var resolved: [Substring] = []
    var absolute = pathIsAbsolute
    if !pathIsAbsolute, let writtenCwd {
      absolute = writtenCwd.hasPrefix("/")
      Self.append(writtenCwd.split(separator: "/"), to: &resolved, isAbsolute: absolute)
    }
    Self.append(names, to: &resolved, isAbsolute: absolute)
    isAbsolute = absolute
    self.names = resolved
  }

  private static func append(
    _ names: some Sequence<Substring>, to resolved: inout [Substring], isAbsolute: Bool
  ) {
    for name in names {
      switch name {
      case ".", "": continue
      case "..":
        if let last = resolved.last, last != ".." {
          resolved.removeLast()
        } else if !isAbsolute {
          resolved.append(name)
        }
      default: resolved.append(name)
      }
    }
  }

  /// The folders it is under, nearest first (the manifest's folder or the root left out).
  var ancestors: some Sequence<WrittenPath> {
    (0..<names.count).reversed().lazy.filter { $0 > 0 }.map { [self] in
      var folder = self
      folder.names.removeSubrange($0...)
      return folder
    }
  }

  /// Whether it names the manifest's own `.oprun` folder or something under it.
  var isInStateFolder: Bool { !isAbsolute && names.first == ".oprun" }
}

extension PathPattern {
  /// The folder a pattern's matches all lie under (the whole path when it has no wildcard),
  /// as written in a job whose written `cwd` is `writtenCwd`.
  func literalFolder(writtenCwd: String?) -> WrittenPath {
    WrittenPath(literalPrefix.folder.lazy.map { Substring($0) }, writtenCwd: writtenCwd, isAbsolute: isAbsolute)
  }

  /// Whether it names one path, with no `*`, `?`, `[...]` or `**`.
  var isLiteral: Bool { literalPrefix.rest.isEmpty }
}
