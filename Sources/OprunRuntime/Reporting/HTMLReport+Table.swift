extension HTMLReport {
  /// The rest of the page's script: the job table (the jobs that pass its filters, in the
  /// order of the column clicked, only the rows in view in the document once there are more
  /// than 2,000), the details of a job, and start-up.
  static let tableAndDetailsScript = #"""
    // ---- the job table: the jobs that pass the filters, in the order of the column picked
    var TABLE_ROW = 26, ALL_ROWS_UP_TO = 2000;
    var tableScroller = $("table-scroller"), tableBody = $("table-body");
    var nameFilter = $("job-filter"), outcomeFilter = $("outcome-filter");
    tableBody.style.position = "relative";
    // What each sortable column sorts by; a job with no value there comes last either way.
    var SORT_KEYS = {
      name: function (index) { return jobs[index].name; },
      queue: function (index) { return queues[jobs[index].queue].name; },
      outcome: function (index) { return outcomes[index]; },
      exit: function (index) { var job = jobs[index]; return job.signal ? 1000 + job.signal : job.exit_code; },
      attempts: function (index) { return barsOfJob[index].length; },
      start: function (index) { return barsOfJob[index].length ? bars[barsOfJob[index][0]].start : undefined; },
      duration: function (index) { return jobs[index].duration; },
      memory: function (index) { return jobs[index].peak_memory; }
    };
    // A first click sorts these from the largest: the longest, the most retried, the heaviest first.
    var LARGEST_FIRST = { exit: true, attempts: true, duration: true, memory: true };
    var sortKey = null, descending = false, shownJobs = [];
    var collator = new Intl.Collator(undefined, { numeric: true });
    function compareValues(a, b) {
      if (a === b) return 0;
      if (a === undefined || a === null) return 1;
      if (b === undefined || b === null) return -1;
      var order = typeof a === "string" ? collator.compare(a, b) : a - b;
      return descending ? -order : order;
    }
    function filterAndSort() {
      var text = nameFilter.value.toLowerCase(), outcome = outcomeFilter.value;
      shownJobs = [];
      for (var index = 0; index < jobs.length; index++) {
        if (text && jobs[index].name.toLowerCase().indexOf(text) < 0) continue;
        if (outcome === "not-succeeded" ? outcomes[index] === "succeeded" : outcome !== "all" && outcomes[index] !== outcome) continue;
        shownJobs.push(index);
      }
      if (sortKey) {
        var key = SORT_KEYS[sortKey], values = new Map();
        shownJobs.forEach(function (index) { values.set(index, key(index)); });
        shownJobs.sort(function (a, b) { return compareValues(values.get(a), values.get(b)) || a - b; });
      }
      tableBody.style.height = shownJobs.length * TABLE_ROW + "px";
      $("jobs-count").textContent = "· " + (shownJobs.length === jobs.length ? jobs.length : shownJobs.length + " of " + jobs.length) +
        " · click a header to sort, a row for its details";
      document.querySelectorAll("#table-scroller [data-sort]").forEach(function (header) {
        var sorted = header.getAttribute("data-sort") === sortKey;
        header.setAttribute("aria-sort", sorted ? (descending ? "descending" : "ascending") : "none");
      });
      tableScroller.scrollTop = 0;
      drawTable(true);
    }
    function sortBy(key) {
      if (sortKey === key) descending = !descending; else { sortKey = key; descending = !!LARGEST_FIRST[key]; }
      filterAndSort();
    }
    function fillOutcomeFilter() {
      var tally = {};
      outcomes.forEach(function (outcome) { tally[outcome] = (tally[outcome] || 0) + 1; });
      ["failed", "timed-out", "cancelled", "skipped", "succeeded", "running", "unfinished"].forEach(function (outcome) {
        if (!tally[outcome] && ["running", "unfinished"].indexOf(outcome) >= 0) return;
        var option = element("option", null, outcome + " (" + (tally[outcome] || 0) + ")");
        option.value = outcome;
        outcomeFilter.appendChild(option);
      });
      var others = element("option", null, "all but succeeded (" + (jobs.length - (tally.succeeded || 0)) + ")");
      others.value = "not-succeeded";
      outcomeFilter.appendChild(others);
    }
    document.querySelectorAll("#table-scroller [data-sort]").forEach(function (header) {
      header.setAttribute("role", "columnheader");
      header.tabIndex = 0;
      header.addEventListener("click", function () { sortBy(header.getAttribute("data-sort")); });
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(header.getAttribute("data-sort")); }
      });
    });
    nameFilter.addEventListener("input", filterAndSort);
    outcomeFilter.addEventListener("change", filterAndSort);
    var shownRows = [-1, -1];
    function drawTable(force) {
      var first = 0, last = shownJobs.length;
      if (shownJobs.length > ALL_ROWS_UP_TO) {
        var top = Math.max(0, tableScroller.scrollTop - TABLE_ROW);
        first = Math.max(0, Math.floor(top / TABLE_ROW) - 20);
        last = Math.min(shownJobs.length, Math.ceil((top + tableScroller.clientHeight) / TABLE_ROW) + 20);
      }
      if (!force && first === shownRows[0] && last === shownRows[1]) return;
      shownRows = [first, last];
      var fragment = document.createDocumentFragment();
      for (var position = first; position < last; position++) fragment.appendChild(tableRow(shownJobs[position], position));
      tableBody.textContent = "";
      tableBody.appendChild(fragment);
    }
    function tableRow(index, position) {
      var job = jobs[index], outcome = outcomes[index], attempts = barsOfJob[index];
      var row = element("div", "row body" + (index === selected ? " selected" : ""));
      row.setAttribute("role", "row");
      row.setAttribute("data-job", job.name);
      row.style.top = position * TABLE_ROW + "px";
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
      row.appendChild(element("span", "num", job.memory || "—"));
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
        var bar = bars[barsOfJob[index][0]], queue = queueOfRow[bar.row].queue;
        // A job drawn only as part of its queue's density gets the zoom that draws it.
        if (shapes[queue].mode === "density") { zoom = clampZoom(zoomShowingJobsOf(queue)); layoutTimeline(); }
        var scale = pixelsPerSecond();
        scroller.scrollLeft = Math.max(0, bar.start * scale - (scroller.clientWidth - GUTTER) / 3);
        scroller.scrollTop = Math.max(0, rowTop(bar.row) - scroller.clientHeight / 2);
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
      fact("description", job.description);
      fact("queue", queues[job.queue].name);
      fact("outcome", outcomes[index] + (job.resumed ? " (resumed, not run again)" : ""));
      fact("exit status", job.signal !== null && job.signal !== undefined ? null : job.exit_code);
      fact("signal", job.signal !== null && job.signal !== undefined ? exitText(null, job.signal) : null);
      fact("duration", job.duration !== undefined ? seconds(job.duration) : null);
      fact("attempts", barsOfJob[index].length);
      fact("CPU time", job.cpu_s !== undefined ? seconds(job.cpu_s) : null);
      fact("peak memory", job.memory ? job.memory + (job.memory_source === "cgroup" ? " (its cgroup)" : " (its largest process)") : null);
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
    fillOutcomeFilter();
    filterAndSort();
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
