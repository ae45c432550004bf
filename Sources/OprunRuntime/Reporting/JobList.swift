import OprunCore

/// What `oprun list` shows (SPEC §15): every job in manifest order — a matrix job once, with
/// how many instances it has — with its description, queue, dependencies and whether its
/// files say it is up to date, as `-n` decides it.
struct JobList {
  /// One line of the list: a job, or a matrix job standing for its instances.
  struct Entry {
    var name: String
    var description: String?
    var queue: String
    /// The jobs it depends on, an instance's by its matrix job's name, each once, in order.
    var dependencies: [String]
    /// How many instances a matrix job has; nil for a job without a matrix.
    var instances: Int?
    /// Whether its files say it (every instance of it) is up to date; nil when no file of
    /// it decides.
    var upToDate: Bool?
  }

  var manifest: String
  var entries: [Entry]

  /// The entries of `graph`, with `decisions` (by job, as ``FilePlan`` gives them; empty when
  /// no file decides anything).
  init(_ graph: JobGraph, manifest: String, decisions: [RunDecision?]) {
    self.manifest = manifest
    var entries: [Entry] = []
    var entryOfTemplate: [String: Int] = [:]
    for job in graph.jobs {
      let decision = decisions.indices.contains(job.id) ? decisions[job.id] : nil
      let upToDate = decision.map { $0 == .upToDate }
      let dependencies = job.dependencies.map { graph.jobs[$0].instance?.template ?? graph.jobs[$0].name }
      if let template = job.instance?.template, let index = entryOfTemplate[template] {
        entries[index].instances? += 1
        entries[index].dependencies = Self.appendingNew(dependencies, to: entries[index].dependencies)
        if let upToDate { entries[index].upToDate = (entries[index].upToDate ?? true) && upToDate }
        continue
      }
      if let template = job.instance?.template { entryOfTemplate[template] = entries.count }
      entries.append(
        Entry(
          name: job.instance?.template ?? job.name, description: job.description,
          queue: graph.queues[job.queue].name, dependencies: Self.appendingNew(dependencies, to: []),
          instances: job.instance == nil ? nil : 1, upToDate: upToDate))
    }
    self.entries = entries
  }

  private static func appendingNew(_ names: [String], to list: [String]) -> [String] {
    var list = list
    for name in names where !list.contains(name) { list.append(name) }
    return list
  }

  /// One line per entry: the name, the description, then what sets it apart in brackets —
  /// a queue other than the main one, its dependencies, its instances, `up to date`.
  func text(mainQueue: String) -> String {
    let width = min(entries.map { $0.name.count }.max() ?? 0, 32)
    var text = ""
    for entry in entries {
      var details: [String] = []
      if entry.queue != mainQueue { details.append("queue \(entry.queue)") }
      if !entry.dependencies.isEmpty { details.append("after \(entry.dependencies.joined(separator: ", "))") }
      if let instances = entry.instances { details.append(counted(instances, "instance")) }
      if entry.upToDate == true { details.append("up to date") }
      let name = DisplayText.escaped(entry.name)
      var line = name
      let description = entry.description.map(DisplayText.escaped) ?? ""
      if !description.isEmpty || !details.isEmpty {
        line += String(repeating: " ", count: max(width - name.count, 0)) + "  " + description
      }
      if !details.isEmpty {
        line += (description.isEmpty ? "" : "  ") + "(" + DisplayText.escaped(details.joined(separator: " · ")) + ")"
      }
      text += line + "\n"
    }
    return text
  }

  /// `{"manifest": PATH, "jobs": [{"name", "description", "queue", "dependencies",
  /// "instances", "up_to_date"}, ...]}` on one line; `description`, `instances` and
  /// `up_to_date` are null when there is none to say.
  var json: String {
    var object = JSONObjectWriter()
    object.field("manifest", manifest)
    object.field("jobs", objects: entries) { entry, member in
      member.field("name", entry.name)
      member.field("description", entry.description)
      member.field("queue", entry.queue)
      member.field("dependencies", entry.dependencies)
      member.field("instances", entry.instances)
      if let upToDate = entry.upToDate {
        member.field("up_to_date", upToDate)
      } else {
        member.field("up_to_date", nil as String?)
      }
    }
    object.close(newline: true)
    return String(decoding: object.bytes, as: UTF8.self)
  }
}
