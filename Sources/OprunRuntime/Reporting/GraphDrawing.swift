import OprunCore

/// A job graph as `oprun graph` draws it (SPEC §4), before it is written as DOT or mermaid:
/// one box per job inside its queue's cluster, one arrow from each dependency to its
/// dependent. Every text is as a person reads it (names escaped by ``DisplayText``); each
/// format escapes it again for its own syntax.
struct GraphDrawing {
  struct Node {
    /// The job's id in the graph drawn; the formats name the node `n<id>`.
    var id: JobID
    /// The name first, then its description, what is worth knowing about it: its start band and QoS, and
    /// with a run, how it ended and how long it took.
    var lines: [String]
    /// A barrier is drawn in its own shape: it is where its queue waits.
    var isBarrier: Bool
    /// What the run recorded of it; nil when no run is drawn.
    var status: NodeStatus?
    /// The index in ``GraphDrawing/matrices`` of the matrix job it is an instance of.
    var matrix: Int? = nil
  }

  /// A matrix job's instances, drawn together inside their queue's cluster (SPEC §11).
  struct MatrixGroup {
    /// The matrix job's name and how many of its instances are drawn.
    var title: String
    /// Its instances drawn, in manifest order.
    var nodes: [JobID]
  }

  /// A job's fate in a recorded run, as a colour.
  enum NodeStatus: String, CaseIterable {
    case succeeded, failed, timedOut, cancelled, skipped
    /// Executing when the stream ended.
    case running
    /// In the run, but it had not started when the stream ended.
    case notStarted
    /// Not in the run at all.
    case notRun
  }

  struct Cluster {
    /// The queue's name and its limit.
    var title: String
    /// Its jobs, in manifest order.
    var nodes: [JobID]
  }

  struct Edge {
    var from: JobID
    var to: JobID
    /// A dependency the job does not list itself: a barrier put it there.
    var impliedByBarrier: Bool
    /// The dependent's `run-if`: every arrow into a job that runs on `always` or `failure` says so.
    var runIf: RunCondition
  }

  /// The manifest's name.
  var title: String
  /// Indexed by job id.
  var nodes: [Node]
  /// Queues in graph order, those with no job drawn left out.
  var clusters: [Cluster]
  /// Grouped by dependent, in manifest order, each dependent's in its dependency order.
  var edges: [Edge]
  /// In the manifest order of each one's first instance.
  var matrices: [MatrixGroup] = []

  /// The drawing of `graph`, coloured by `run` when there is one.
  init(graph: JobGraph, run: RecordedRun? = nil) {
    title = DisplayText.escaped(graph.manifest.name)
    var members = [[JobID]](repeating: [], count: graph.queues.count)
    for job in graph.jobs where members.indices.contains(job.queue) { members[job.queue].append(job.id) }
    clusters = graph.queues.indices.compactMap { queue in
      guard !members[queue].isEmpty else { return nil }
      let title = "\(graph.reportedName(queue: queue)) · max-concurrent \(graph.queues[queue].maxConcurrent)"
      return Cluster(title: title, nodes: members[queue])
    }
    nodes = graph.jobs.map { job in
      let serial = graph.queues.indices.contains(job.queue) && graph.queues[job.queue].maxConcurrent == 1
      var lines = [graph.reportedName(job: job.id)]
      if let description = job.description, !description.isEmpty { lines.append(DisplayText.escaped(description)) }
      let settings = Self.settings(of: job, onSerialQueue: serial)
      if !settings.isEmpty { lines.append(settings) }
      var status: NodeStatus?
      if let run {
        let (recorded, text) = Self.fate(of: run.job(named: job.name), runEnd: run.end)
        status = recorded
        lines.append(text)
      }
      return Node(id: job.id, lines: lines, isBarrier: job.barrier, status: status)
    }
    edges = Self.edges(of: graph)
    groupInstances(of: graph)
  }

  /// What a cluster holds, in drawing order: a job of its own, or a matrix job's group, at the
  /// place of its first instance. DOT and mermaid both draw a cluster this way.
  enum ClusterItem {
    case node(JobID)
    case matrix(Int)
  }

  func items(of cluster: Cluster) -> [ClusterItem] {
    cluster.nodes.compactMap { id in
      guard let matrix = nodes[id].matrix else { return .node(id) }
      return matrices[matrix].nodes.first == id ? .matrix(matrix) : nil
    }
  }

  /// Puts each matrix job's instances in a group of their own.
  private mutating func groupInstances(of graph: JobGraph) {
    var groupOf: [String: Int] = [:]
    for job in graph.jobs {
      guard let template = job.instance?.template else { continue }
      let group =
        groupOf[template]
        ?? {
          matrices.append(MatrixGroup(title: DisplayText.escaped(template), nodes: []))
          groupOf[template] = matrices.count - 1
          return matrices.count - 1
        }()
      matrices[group].nodes.append(job.id)
      nodes[job.id].matrix = group
    }
    for index in matrices.indices {
      let count = matrices[index].nodes.count
      matrices[index].title += " · \(count) instance\(count == 1 ? "" : "s")"
    }
  }

  /// `priority high · qos utility`: what sets the job apart, the defaults left out.
  static func settings(of job: JobNode, onSerialQueue serial: Bool) -> String {
    var parts: [String] = []
    if job.barrier { parts.append("barrier") }
    let band = job.band(onSerialQueue: serial)
    if band != .normal { parts.append("priority \(band.word)") }
    if job.qos != .default { parts.append("qos \(job.qos.rawValue)") }
    return parts.joined(separator: " · ")
  }

  /// Every dependency as an arrow. The graph holds barrier edges among the others; an edge
  /// is the barrier's when the dependent's own `dependencies` do not name it.
  static func edges(of graph: JobGraph) -> [Edge] {
    var specIndex: [String: Int] = [:]
    specIndex.reserveCapacity(graph.manifest.jobs.count)
    for (index, spec) in graph.manifest.jobs.enumerated() { specIndex[spec.name] = index }
    var edges: [Edge] = []
    for job in graph.jobs where !job.dependencies.isEmpty {
      let listed = specIndex[job.name].map { Set(graph.manifest.jobs[$0].dependencies.lazy.map(\.value)) }
      for dependency in job.dependencies {
        let implied = listed.map { !$0.contains(graph.jobs[dependency].name) } ?? false
        edges.append(Edge(from: dependency, to: job.id, impliedByBarrier: implied, runIf: job.runIf))
      }
    }
    return edges
  }
}
