import OprunCore

/// Where each job runs: the `cwd` the graph resolved for it, else the manifest's own folder
/// (as go-task runs a Taskfile's tasks in its folder).
struct JobDirectories {
  let manifestFolder: String

  init(manifest: Manifest) {
    let path = manifest.path
    if let slash = path.lastIndex(of: "/") {
      manifestFolder = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
      manifestFolder = "."
    }
  }

  func directory(of job: JobNode) -> String {
    job.cwd ?? manifestFolder
  }
}
