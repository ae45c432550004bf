extension HTMLReport {
  /// The data block and the script that draws the page from it. Text from the run (job and
  /// queue names, reasons, errors) reaches the page only through `textContent`, attributes
  /// and the canvas, never as markup.
  static let pageScript = #"""
    <script type="application/json" id="run-data">/*RUN-DATA*/</script>
    <script>
    (function () {
    "use strict";
    var root = document.documentElement;
    var data = JSON.parse(document.getElementById("run-data").textContent);
    var jobs = data.jobs, bars = data.bars, queues = data.queues;
    var runEnd = Math.max(data.end, 0.001);
    var COLORS = { succeeded: "#2da44e", failed: "#cf222e", "timed-out": "#e16f24", cancelled: "#8c959f",
      skipped: "#c9d1d9", retried: "#d4a72c", running: "#0969da" };
    var CRITICAL = "#8250df", SELECTED = "#1f2328";
    var critical = new Set(data.critical_path);
    var barsOfJob = jobs.map(function () { return []; });
    var rowBars = [];
    for (var r = 0; r < data.rows; r++) rowBars.push([]);
    bars.forEach(function (bar, index) { barsOfJob[bar.job].push(index); rowBars[bar.row].push(index); });
    var queueOfRow = [];
    queues.forEach(function (queue, index) {
      for (var lane = 0; lane < queue.lanes; lane++) queueOfRow.push({ queue: index, lane: lane });
    });
    var selected = -1;

    function $(id) { return document.getElementById(id); }
    function element(tag, className, text) {
      var node = document.createElement(tag);
      if (className) node.className = className;
      if (text !== undefined && text !== null) node.textContent = String(text);
      return node;
    }
    function seconds(t) {
      if (t === undefined || t === null) return "—";
      if (t < 1) return (t * 1000).toFixed(t < 0.01 ? 1 : 0) + " ms";
      if (t < 60) return t.toFixed(2) + " s";
      var minutes = Math.floor(t / 60);
      return minutes + "m " + (t - minutes * 60).toFixed(1).padStart(4, "0") + "s";
    }
    // How a command ended, in words: "exit 4", "killed by SIGTERM (15)".
    function ending(exitCode, signal) {
      if (signal !== null && signal !== undefined) return "killed by " + exitText(exitCode, signal);
      return exitCode !== null && exitCode !== undefined ? "exit " + exitCode : "no exit status";
    }
    function at(t) { return t === undefined || t === null ? "—" : t.toFixed(3) + " s"; }
    var SIGNALS = { 1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 13: "SIGPIPE", 15: "SIGTERM" };
    function exitText(exitCode, signal) {
      if (signal !== null && signal !== undefined) return SIGNALS[signal] ? SIGNALS[signal] + " (" + signal + ")" : "signal " + signal;
      if (exitCode !== null && exitCode !== undefined) return String(exitCode);
      return "—";
    }
    // A job the stream left without an outcome was running then, or had not started.
    var outcomes = jobs.map(function (job, index) { return job.outcome || (barsOfJob[index].length ? "running" : "unfinished"); });
    function jobLink(index) {
      var link = element("a", "job", jobs[index].name);
      link.href = "#timeline";
      link.setAttribute("data-job", jobs[index].name);
      link.addEventListener("click", function () { select(index, true); });
      return link;
    }
    var jobIndex = new Map();
    jobs.forEach(function (job, index) { jobIndex.set(job.name, index); });

    // ---- summary, failures, critical path
    function drawSummary() {
      $("run-id").textContent = data.run || "";
      document.title = "oprun report" + (data.run ? " " + data.run : "");
      var status = $("status");
      if (!data.complete) {
        status.textContent = "cut off"; status.className = "badge cut";
      } else {
        status.textContent = "exit status " + data.exit_code;
        status.className = "badge " + (data.exit_code === 0 ? "ok" : "bad");
      }
      var cards = $("cards");
      function card(value, label, color) {
        var box = element("div", "card");
        box.appendChild(element("div", "value", value));
        var caption = element("div", "label");
        if (color) { var swatch = element("span", "swatch"); swatch.style.background = color; caption.appendChild(swatch); }
        caption.appendChild(document.createTextNode(label));
        box.appendChild(caption);
        cards.appendChild(box);
      }
      card(data.announced_jobs, "jobs");
      ["succeeded", "failed", "timed-out", "cancelled", "skipped"].forEach(function (outcome) {
        card(data.counts[outcome] || 0, outcome, COLORS[outcome]);
      });
      card(seconds(data.end), data.complete ? "wall time" : "until cut off");
      card(data.complete ? data.exit_code : "—", "exit status");
      var notes = [];
      if (!data.complete) {
        var unfinished = jobs.filter(function (job) { return !job.outcome; }).length;
        unfinished += Math.max(0, data.announced_jobs - jobs.length);
        notes.push("Cut off: the events file ends without run-finished, " + unfinished +
          " job(s) had not finished; the timeline stops at its last line.");
      }
      if (data.unreadable_lines) notes.push(data.unreadable_lines + " unreadable line(s) skipped.");
      if (data.output_from_journal) notes.push("The events file holds no output: the failures' last lines are their journal's.");
      if (data.warnings.length) notes.push(data.warnings.length + " warning(s): " + data.warnings.join(" · "));
      var note = $("summary-note");
      note.textContent = notes.join(" ");
      if (!data.complete) note.className = "note cutoff";
      if (!notes.length) note.hidden = true;
    }

    // A failure's last `count` lines of output (all it kept when no count), as text; null when
    // it has none.
    function lastLines(job, count) {
      if (!job.output || !job.output.length) return null;
      var lines = count === undefined ? job.output : job.output.slice(-count);
      var box = element("pre", "output");
      var earlier = job.output_lines - lines.length;
      if (earlier > 0) box.appendChild(element("span", "earlier", "… " + earlier + " earlier line" + (earlier === 1 ? "" : "s") + "\n"));
      box.appendChild(document.createTextNode(lines.join("\n")));
      return box;
    }
    // The failures, each with its last LINES_IN_FAILURES lines, whole, as the run's own summary
    // shows them (the first FAILURES_WITH_LINES failures: the rest show theirs in their details,
    // which hold all the report has of them).
    var LINES_IN_FAILURES = 10, FAILURES_WITH_LINES = 20;
    function drawFailures() {
      var list = $("failure-list"), shown = 0;
      jobs.forEach(function (job, index) {
        if (job.outcome !== "failed" && job.outcome !== "timed-out") return;
        var item = element("li");
        item.setAttribute("data-job", job.name);
        item.appendChild(jobLink(index));
        var words = " — " + job.outcome + ", " + ending(job.exit_code, job.signal);
        if (job.duration !== undefined) words += ", after " + seconds(job.duration);
        if (job.error) words += ": " + job.error;
        item.appendChild(document.createTextNode(words));
        list.appendChild(item);
        var box = shown < FAILURES_WITH_LINES ? lastLines(job, LINES_IN_FAILURES) : null;
        if (box) { item.appendChild(box); shown++; }
      });
      $("failures").hidden = list.children.length === 0;
    }

    // One line per matrix job: how its instances ended, then each instance.
    function drawMatrices() {
      var list = $("matrix-list");
      (data.matrices || []).forEach(function (group) {
        var item = element("li");
        var tally = {};
        group.jobs.forEach(function (index) {
          tally[outcomes[index]] = (tally[outcomes[index]] || 0) + 1;
        });
        var words = Object.keys(tally).map(function (outcome) { return tally[outcome] + " " + outcome; }).join(", ");
        item.appendChild(element("strong", null, group.template));
        item.appendChild(document.createTextNode(" — " + group.jobs.length + " instance" + (group.jobs.length === 1 ? "" : "s") + ": " + words + " · "));
        // A large matrix links its first instances; the table lists them all.
        var LINKED = 50;
        group.jobs.slice(0, LINKED).forEach(function (index, position) {
          if (position > 0) item.appendChild(document.createTextNode(" "));
          item.appendChild(jobLink(index));
        });
        if (group.jobs.length > LINKED) item.appendChild(document.createTextNode(" … and " + (group.jobs.length - LINKED) + " more"));
        list.appendChild(item);
      });
      $("matrices").hidden = list.children.length === 0;
    }

    function drawCriticalPath() {
      var box = $("critical-path");
      var path = data.critical_path;
      if (!path.length) { box.textContent = "No job ran."; return; }
      // A long chain shows its ends: its every job is marked in the timeline and the table.
      var SHOWN_AT_EACH_END = 12;
      path.forEach(function (index, position) {
        var fromEnd = path.length - 1 - position;
        if (position >= SHOWN_AT_EACH_END && fromEnd >= SHOWN_AT_EACH_END) {
          if (position === SHOWN_AT_EACH_END) {
            box.appendChild(element("span", "arrow", "→ … " + (path.length - 2 * SHOWN_AT_EACH_END) + " more jobs …"));
          }
          return;
        }
        if (position > 0) box.appendChild(element("span", "arrow", "→"));
        box.appendChild(jobLink(index));
      });
      var first = jobs[path[0]], last = jobs[path[path.length - 1]];
      var start = first.ready !== undefined ? first.ready : 0;
      var end = last.finished !== undefined ? last.finished : data.end;
      box.appendChild(element("span", "note", " · " + seconds(end - start) + " of " + seconds(data.end) +
        " (each job made ready by the one before it finishing)"));
    }

    function drawLegend() {
      var legend = $("legend");
      ["succeeded", "failed", "timed-out", "cancelled", "skipped", "retried", "running"].forEach(function (state) {
        var item = element("span", null, state === "running" ? "running when cut off" : state);
        item.style.setProperty("--c", COLORS[state]);
        legend.appendChild(item);
      });
      [["critical path", CRITICAL], ["queue suspended", "rgba(225, 111, 36, 0.35)"], ["paused", "#d0d7de"],
        ["▼ cancelled here", "transparent"]].forEach(function (pair) {
        var item = element("span", null, pair[0]);
        item.style.setProperty("--c", pair[1]);
        legend.appendChild(item);
      });
    }

    """# + timelineScript + memoryScript + tableAndDetailsScript
}
