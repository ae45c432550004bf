extension HTMLReport {
  /// The rest of the page's script: the job table (only the rows in view are in the
  /// document once there are more than a few thousand), the details of a job, and start-up.
  static let tableAndDetailsScript = #"""
    // ---- the job table
    var TABLE_ROW = 26, ALL_ROWS_UP_TO = 2000;
    var tableScroller = $("table-scroller"), tableBody = $("table-body");
    tableBody.style.position = "relative";
    tableBody.style.height = jobs.length * TABLE_ROW + "px";
    $("jobs-count").textContent = "· " + jobs.length + " · click a row for its details";
    var shownRows = [-1, -1];
    function drawTable(force) {
      var first = 0, last = jobs.length;
      if (jobs.length > ALL_ROWS_UP_TO) {
        var top = Math.max(0, tableScroller.scrollTop - TABLE_ROW);
        first = Math.max(0, Math.floor(top / TABLE_ROW) - 20);
        last = Math.min(jobs.length, Math.ceil((top + tableScroller.clientHeight) / TABLE_ROW) + 20);
      }
      if (!force && first === shownRows[0] && last === shownRows[1]) return;
      shownRows = [first, last];
      var fragment = document.createDocumentFragment();
      for (var index = first; index < last; index++) fragment.appendChild(tableRow(index));
      tableBody.textContent = "";
      tableBody.appendChild(fragment);
    }
    function tableRow(index) {
      var job = jobs[index], outcome = outcomeOf(job), attempts = barsOfJob[index];
      var row = element("div", "row body" + (index === selected ? " selected" : ""));
      row.setAttribute("role", "row");
      row.setAttribute("data-job", job.name);
      row.style.top = index * TABLE_ROW + "px";
      var name = element("span");
      var dot = element("span", "dot");
      dot.style.background = COLORS[outcome] || "#d0d7de";
      name.appendChild(dot);
      name.appendChild(document.createTextNode(job.name));
      if (critical.has(index)) { var mark = element("span", "crit", "◆"); mark.title = "on the critical path"; name.appendChild(mark); }
      name.title = job.name;
      row.appendChild(name);
      row.appendChild(element("span", null, queues[job.queue].name));
      row.appendChild(element("span", null, outcome));
      var exitCell = element("span", "num", job.signal ? SIGNALS[job.signal] || "signal " + job.signal : exitText(job.exit_code));
      exitCell.title = ending(job.exit_code, job.signal);
      row.appendChild(exitCell);
      row.appendChild(element("span", "num", attempts.length));
      row.appendChild(element("span", "num", attempts.length ? at(bars[attempts[0]].start) : "—"));
      row.appendChild(element("span", "num", job.duration !== undefined ? seconds(job.duration) : "—"));
      row.appendChild(element("span", null, job.after || ""));
      row.tabIndex = 0;
      row.addEventListener("click", function () { select(index, true); });
      row.addEventListener("keydown", function (event) { if (event.key === "Enter") select(index, true); });
      return row;
    }
    tableScroller.addEventListener("scroll", function () { drawTable(false); });

    // ---- one job's details
    function select(index, reveal) {
      selected = index;
      if (reveal && barsOfJob[index].length) {
        var bar = bars[barsOfJob[index][0]], scale = pixelsPerSecond();
        scroller.scrollLeft = Math.max(0, bar.start * scale - (scroller.clientWidth - GUTTER) / 3);
        scroller.scrollTop = Math.max(0, bar.row * ROW - scroller.clientHeight / 2);
      }
      draw();
      drawTable(true);
      showDetails(index);
    }
    function showDetails(index) {
      var job = jobs[index], body = $("details-body");
      body.textContent = "";
      body.appendChild(element("h3", null, job.name));
      var facts = element("dl");
      function fact(term, value) {
        if (value === undefined || value === null || value === "") return;
        facts.appendChild(element("dt", null, term));
        var detail = element("dd");
        if (value instanceof Node) detail.appendChild(value); else detail.textContent = String(value);
        facts.appendChild(detail);
      }
      fact("queue", queues[job.queue].name);
      fact("outcome", outcomeOf(job) + (job.resumed ? " (resumed, not run again)" : ""));
      fact("exit status", job.signal !== null && job.signal !== undefined ? null : job.exit_code);
      fact("signal", job.signal !== null && job.signal !== undefined ? exitText(null, job.signal) : null);
      fact("duration", job.duration !== undefined ? seconds(job.duration) : null);
      fact("attempts", barsOfJob[index].length);
      fact("ready after", job.after !== undefined && jobIndex.has(job.after) ? jobLink(jobIndex.get(job.after)) : job.after);
      fact("cancelled", job.cancelled ? job.cancelled.reason + " at " + at(job.cancelled.t) : null);
      fact("could not start", job.error);
      fact("why", job.reason);
      if (job.completion) fact("completion", ending(job.completion.exit_code, job.completion.signal));
      fact("critical path", critical.has(index) ? "yes" : null);
      body.appendChild(facts);
      // The cause of a failure first: its last lines.
      var box = lastLines(job);
      if (box) {
        box.className = "output scrolled";
        body.appendChild(element("strong", null, "Last lines of output"));
        body.appendChild(box);
      }
      body.appendChild(element("strong", null, "Transitions"));
      var steps = [];
      if (job.pending !== undefined) steps.push([job.pending, "pending"]);
      if (job.ready !== undefined && !barsOfJob[index].length) {
        steps.push([job.ready, "ready" + (job.after ? " after " + job.after : "")]);
      }
      barsOfJob[index].forEach(function (barIndex, position) {
        var bar = bars[barIndex];
        if (position === 0 && job.ready !== undefined && job.ready <= bar.start) {
          steps.push([Math.min(job.ready, bar.start), "ready" + (job.after ? " after " + job.after : "")]);
        }
        steps.push([bar.start, "executing, attempt " + bar.attempt]);
        if (bar.state === "retried") {
          steps.push([bar.end, "ready again: attempt " + bar.attempt + " ended, " + ending(bar.exit_code, bar.signal)]);
        }
        if (bar.open) steps.push([bar.end, "still executing when the stream was cut off"]);
      });
      (job.pauses || []).forEach(function (pause) {
        steps.push([pause.start, "paused"]);
        if (pause.end !== undefined) steps.push([pause.end, "continued"]);
      });
      if (job.cancelled) steps.push([job.cancelled.t, "cancelled: " + job.cancelled.reason]);
      if (job.finished !== undefined) {
        steps.push([job.finished, "finished: " + job.outcome + ", " + ending(job.exit_code, job.signal)]);
      }
      steps.sort(function (a, b) { return a[0] - b[0]; });
      var list = element("ol");
      steps.forEach(function (step) { list.appendChild(element("li", null, at(step[0]) + " — " + step[1])); });
      body.appendChild(list);
      $("details").hidden = false;
      if (box) box.scrollTop = box.scrollHeight;
    }
    $("details-close").addEventListener("click", function () {
      $("details").hidden = true; selected = -1; draw(); drawTable(true);
    });
    document.addEventListener("keydown", function (event) { if (event.key === "Escape") $("details-close").click(); });

    // ---- start
    drawSummary();
    drawFailures();
    drawMatrices();
    drawCriticalPath();
    drawLegend();
    layoutTimeline();
    draw();
    drawTable(true);
    // A link to one job: report.html#job=NAME opens with its details.
    if (location.hash.indexOf("#job=") === 0) {
      var linked = jobIndex.get(decodeURIComponent(location.hash.slice(5)));
      if (linked !== undefined) select(linked, true);
    }
    root.setAttribute("data-drawn-ms", performance.now().toFixed(1));
    root.setAttribute("data-ready", "1");
    })();
    </script>
    </body>
    </html>

    """#
}
