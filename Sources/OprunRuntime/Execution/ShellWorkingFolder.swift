import Glibc

/// The `PWD` a command run without the shell must be given, so that it sees what it would
/// under `/bin/sh -c`: the shell keeps an inherited `PWD` that names the folder it starts in
/// (however it spells it) and otherwise sets it to that folder's physical path.
///
/// Answers are kept per folder and inherited value: a run asks for the same few folders again
/// and again, and a folder does not move while its jobs run in it.
final class ShellWorkingFolder {
  private struct Key: Hashable {
    var folder: String?
    var inherited: String?
  }

  private var known: [Key: String] = [:]

  /// `environment` with its `PWD` as the shell would set it in `folder` (oprun's own when nil).
  func environment(_ environment: SpawnEnvironment, in folder: String?) -> SpawnEnvironment {
    let inherited = environment.value(of: "PWD")
    let key = Key(folder: folder, inherited: inherited)
    let pwd: String
    if let cached = known[key] {
      pwd = cached
    } else {
      pwd = Self.shellPWD(folder: folder, inherited: inherited)
      known[key] = pwd
    }
    guard pwd != inherited else { return environment }
    return environment.setting(entry: "PWD=" + pwd)
  }

  private static func shellPWD(folder: String?, inherited: String?) -> String {
    let target = folder ?? "."
    if let inherited, inherited.hasPrefix("/"), sameFile(inherited, target) { return inherited }
    guard let resolved = realpath(target, nil) else { return folder ?? inherited ?? "/" }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func sameFile(_ a: String, _ b: String) -> Bool {
    var first = stat()
    var second = stat()
    guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
  }
}
