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
    function outcomeOf(job) { return job.outcome || (barsOfJob[jobs.indexOf(job)].length ? "running" : "unfinished"); }
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
          var outcome = jobs[index].outcome || (barsOfJob[index].length ? "running" : "unfinished");
          tally[outcome] = (tally[outcome] || 0) + 1;
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

    // ---- timeline: a canvas the size of the view, over a sizer the size of the whole run
    var GUTTER = 170, AXIS = 26, ROW = 26, RIGHT = 96, MAX_LISTED = 1000;
    var scroller = $("scroller"), sizer = $("sizer"), canvas = $("canvas"), context = canvas.getContext("2d");
    var zoom = 1, drawQueued = false;
    function contentWidth() { return Math.max(200, (scroller.clientWidth - GUTTER - RIGHT) * zoom); }
    function pixelsPerSecond() { return contentWidth() / runEnd; }
    function layoutTimeline() {
      var height = AXIS + Math.max(data.rows, 1) * ROW + 4;
      scroller.style.height = Math.min(height + (zoom > 1 ? 16 : 2), Math.max(window.innerHeight * 0.62, 200)) + "px";
      sizer.style.width = (GUTTER + contentWidth() + RIGHT) + "px";
      sizer.style.height = height + "px";
    }
    function niceStep(raw) {
      var steps = [1, 2, 5], power = Math.pow(10, Math.floor(Math.log10(raw)));
      for (var i = 0; i < steps.length; i++) if (steps[i] * power >= raw) return steps[i] * power;
      return 10 * power;
    }
    function firstBarEndingAfter(list, time) {
      var low = 0, high = list.length;
      while (low < high) { var mid = (low + high) >> 1; if (bars[list[mid]].end < time) low = mid + 1; else high = mid; }
      return low;
    }
    function stripes(x, y, width, height, color) {
      context.save();
      context.beginPath(); context.rect(x, y, width, height); context.clip();
      context.strokeStyle = color; context.lineWidth = 1.5;
      context.beginPath();
      for (var s = x - height; s < x + width; s += 6) { context.moveTo(s, y + height); context.lineTo(s + height, y); }
      context.stroke();
      context.restore();
    }
    function draw() {
      drawQueued = false;
      var ratio = window.devicePixelRatio || 1;
      // The view is measured without the canvas in it, which could otherwise add a scroll bar.
      canvas.style.width = "0px"; canvas.style.height = "0px";
      var width = scroller.clientWidth, height = scroller.clientHeight;
      var left = scroller.scrollLeft, top = scroller.scrollTop;
      canvas.style.width = width + "px"; canvas.style.height = height + "px";
      canvas.style.left = left + "px"; canvas.style.top = top + "px";
      if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
      if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, width, height);
      context.font = "12px system-ui, sans-serif";
      context.textBaseline = "middle";
      var scale = pixelsPerSecond();
      function x(t) { return GUTTER + t * scale - left; }
      function y(row) { return AXIS + row * ROW - top; }
      var t0 = Math.max(0, (left - 2) / scale), t1 = (left + width - GUTTER + 2) / scale + 1e-9;
      var firstRow = Math.max(0, Math.floor(top / ROW)), lastRow = Math.min(data.rows - 1, Math.floor((top + height) / ROW));
      var step = niceStep(90 / scale);
      // rows, suspensions, grid
      for (var row = firstRow; row <= lastRow; row++) {
        if (row % 2) { context.fillStyle = "#fafbfc"; context.fillRect(GUTTER, y(row), width, ROW); }
      }
      queues.forEach(function (queue) {
        var top0 = y(queue.first_row), bottom = y(queue.first_row + queue.lanes);
        queue.suspensions.forEach(function (span) {
          var from = x(span.start), to = x(span.end !== undefined ? span.end : data.end);
          context.fillStyle = "rgba(225, 111, 36, 0.13)";
          context.fillRect(from, top0, Math.max(to - from, 2), bottom - top0);
          stripes(from, top0, Math.max(to - from, 2), bottom - top0, "rgba(225, 111, 36, 0.25)");
        });
      });
      context.strokeStyle = "#eef1f4"; context.lineWidth = 1;
      context.beginPath();
      for (var tick = Math.floor(t0 / step) * step; tick <= t1; tick += step) {
        var tickX = Math.round(x(tick)) + 0.5; context.moveTo(tickX, AXIS); context.lineTo(tickX, height);
      }
      context.stroke();
      // bars
      var listed = [], hidden = 0;
      for (row = firstRow; row <= lastRow; row++) {
        var list = rowBars[row];
        for (var i = firstBarEndingAfter(list, t0); i < list.length; i++) {
          var bar = bars[list[i]];
          if (bar.start > t1) break;
          var barX = x(bar.start), barWidth = Math.max((bar.end - bar.start) * scale, 1.5);
          var barY = y(row) + 3, barHeight = ROW - 6, job = jobs[bar.job];
          context.fillStyle = COLORS[bar.state] || COLORS.running;
          context.fillRect(barX, barY, barWidth, barHeight);
          if (bar.open) stripes(barX, barY, barWidth, barHeight, "rgba(255, 255, 255, 0.45)");
          (job.pauses || []).forEach(function (pause) {
            var from = Math.max(pause.start, bar.start), to = Math.min(pause.end !== undefined ? pause.end : bar.end, bar.end);
            if (to <= from) return;
            context.fillStyle = "rgba(255, 255, 255, 0.55)";
            context.fillRect(x(from), barY, (to - from) * scale, barHeight);
            stripes(x(from), barY, (to - from) * scale, barHeight, "rgba(31, 35, 40, 0.35)");
          });
          if (critical.has(bar.job)) {
            context.strokeStyle = CRITICAL; context.lineWidth = 2;
            context.strokeRect(barX - 1, barY - 1, barWidth + 2, barHeight + 2);
          }
          if (bar.job === selected) {
            context.strokeStyle = SELECTED; context.lineWidth = 2;
            context.strokeRect(barX - 2, barY - 2, barWidth + 4, barHeight + 4);
          }
          if (job.cancelled && job.cancelled.t >= bar.start && (job.cancelled.t <= bar.end || bar.open)) {
            var cancelX = Math.round(x(job.cancelled.t)) + 0.5;
            context.strokeStyle = "#1f2328"; context.lineWidth = 2;
            context.beginPath(); context.moveTo(cancelX, barY - 2); context.lineTo(cancelX, barY + barHeight + 2); context.stroke();
            context.fillStyle = "#1f2328";
            context.beginPath(); context.moveTo(cancelX - 4, barY - 3); context.lineTo(cancelX + 4, barY - 3);
            context.lineTo(cancelX, barY + 2); context.fill();
          }
          // The name inside the bar, or after it when the bar is narrow and the lane free there.
          var next = i + 1 < list.length ? x(bars[list[i + 1]].start) : x(runEnd) + RIGHT;
          var inside = barWidth > 34, room = Math.floor(((inside ? barWidth : next - barX - barWidth - 4) - 8) / 6.6);
          if (room >= 4) {
            var label = job.name.length > room ? job.name.slice(0, room - 1) + "…" : job.name;
            context.fillStyle = inside && bar.state !== "skipped" ? "#fff" : "#1f2328";
            context.fillText(label, inside ? barX + 4 : barX + barWidth + 4, barY + barHeight / 2 + 0.5);
          }
          if (listed.length < MAX_LISTED) listed.push({ bar: bar, x: barX + left, width: barWidth }); else hidden++;
        }
      }
      drawCriticalLinks(x, y);
      // gutter and axis, fixed while the bars scroll under them
      context.fillStyle = "#fff"; context.fillRect(0, 0, GUTTER, height);
      context.strokeStyle = "#d8dee4"; context.beginPath();
      context.moveTo(GUTTER - 0.5, 0); context.lineTo(GUTTER - 0.5, height); context.stroke();
      for (row = firstRow; row <= lastRow; row++) {
        var place = queueOfRow[row], queue = queues[place.queue];
        if (place.lane === 0) {
          context.strokeStyle = "#d8dee4"; context.beginPath();
          context.moveTo(0, Math.round(y(row)) + 0.5); context.lineTo(width, Math.round(y(row)) + 0.5); context.stroke();
          context.fillStyle = "#1f2328"; context.font = "600 12px system-ui, sans-serif";
          var name = queue.name.length > 16 ? queue.name.slice(0, 15) + "…" : queue.name;
          context.fillText(name, 8, y(row) + ROW / 2);
        }
        context.fillStyle = "#656d76"; context.font = "12px system-ui, sans-serif";
        context.textAlign = "right";
        context.fillText("lane " + (place.lane + 1), GUTTER - 8, y(row) + ROW / 2);
        context.textAlign = "left";
      }
      context.fillStyle = "#f6f8fa"; context.fillRect(0, 0, width, AXIS);
      context.strokeStyle = "#d8dee4"; context.beginPath();
      context.moveTo(0, AXIS - 0.5); context.lineTo(width, AXIS - 0.5); context.stroke();
      context.fillStyle = "#656d76"; context.font = "11px system-ui, sans-serif";
      for (tick = Math.floor(t0 / step) * step; tick <= t1; tick += step) {
        var labelX = x(tick);
        if (labelX < GUTTER || labelX + 44 > width) continue;
        context.fillText(tick === 0 ? "0" : seconds(tick).replace(" ", ""), labelX + 3, AXIS / 2);
      }
      context.fillStyle = "#1f2328"; context.font = "600 12px system-ui, sans-serif";
      context.fillText(data.rows ? "queue · lane" : "no job ran", 8, AXIS / 2);
      listBars(listed, hidden);
    }
    function drawCriticalLinks(x, y) {
      var path = data.critical_path;
      context.strokeStyle = CRITICAL; context.lineWidth = 1.5; context.setLineDash([4, 3]);
      context.beginPath();
      for (var i = 1; i < path.length; i++) {
        var before = barsOfJob[path[i - 1]], after = barsOfJob[path[i]];
        if (!before.length || !after.length) continue;
        var from = bars[before[before.length - 1]], to = bars[after[0]];
        var fromX = x(from.end), fromY = y(from.row) + ROW / 2, toX = x(to.start), toY = y(to.row) + ROW / 2;
        context.moveTo(fromX, fromY); context.lineTo(fromX + 4, fromY); context.lineTo(fromX + 4, toY); context.lineTo(toX, toY);
      }
      context.stroke();
      context.setLineDash([]);
    }
    function listBars(listed, hidden) {
      var list = $("bar-list");
      list.textContent = "";
      var fragment = document.createDocumentFragment();
      listed.forEach(function (entry) {
        var item = element("li", null, describe(entry.bar).replace(/\n/g, "; "));
        item.setAttribute("data-job", jobs[entry.bar.job].name);
        item.setAttribute("data-attempt", entry.bar.attempt);
        item.setAttribute("data-state", entry.bar.state);
        item.setAttribute("data-x", entry.x.toFixed(1));
        item.setAttribute("data-width", entry.width.toFixed(1));
        fragment.appendChild(item);
      });
      if (hidden) fragment.appendChild(element("li", null, hidden + " more bars in view are not listed"));
      list.appendChild(fragment);
    }
    function queueDraw() { if (!drawQueued) { drawQueued = true; requestAnimationFrame(draw); } }
    function describe(bar) {
      var job = jobs[bar.job];
      var lines = [job.name, queues[job.queue].name + " · attempt " + bar.attempt,
        bar.state + (bar.open ? " (cut off)" : "") + " · " + ending(bar.exit_code, bar.signal),
        at(bar.start) + " – " + at(bar.end) + " (" + seconds(bar.end - bar.start) + ")"];
      if (job.cancelled) lines.push("cancelled (" + job.cancelled.reason + ") at " + at(job.cancelled.t));
      if (critical.has(bar.job)) lines.push("on the critical path");
      return lines.join("\n");
    }
    function barAt(event) {
      var bounds = canvas.getBoundingClientRect();
      var offsetX = event.clientX - bounds.left, offsetY = event.clientY - bounds.top;
      if (offsetX < GUTTER || offsetY < AXIS) return null;
      var scale = pixelsPerSecond();
      var time = (offsetX - GUTTER + scroller.scrollLeft) / scale, slack = 3 / scale;
      var row = Math.floor((offsetY - AXIS + scroller.scrollTop) / ROW);
      if (row < 0 || row >= data.rows) return null;
      var list = rowBars[row];
      for (var i = firstBarEndingAfter(list, time - slack); i < list.length; i++) {
        var bar = bars[list[i]];
        if (bar.start > time + slack) break;
        return bar;
      }
      return null;
    }
    canvas.addEventListener("mousemove", function (event) {
      var bar = barAt(event);
      canvas.title = bar ? describe(bar) : "";
      canvas.style.cursor = bar ? "pointer" : "default";
    });
    canvas.addEventListener("click", function (event) {
      var bar = barAt(event);
      if (bar) select(bar.job, false);
    });
    scroller.addEventListener("scroll", queueDraw);
    scroller.addEventListener("wheel", function (event) {
      if (!event.ctrlKey) return;
      event.preventDefault();
      var bounds = canvas.getBoundingClientRect();
      zoomBy(event.deltaY < 0 ? 1.25 : 0.8, event.clientX - bounds.left);
    }, { passive: false });
    function zoomBy(factor, anchorX) {
      var anchor = anchorX === undefined ? GUTTER + (scroller.clientWidth - GUTTER) / 2 : Math.max(anchorX, GUTTER);
      var time = (anchor - GUTTER + scroller.scrollLeft) / pixelsPerSecond();
      zoom = Math.min(Math.max(zoom * factor, 1), 5e6 / Math.max(scroller.clientWidth, 1));
      layoutTimeline();
      scroller.scrollLeft = time * pixelsPerSecond() - (anchor - GUTTER);
      draw();
    }
    $("zoom-in").addEventListener("click", function () { zoomBy(2); });
    $("zoom-out").addEventListener("click", function () { zoomBy(0.5); });
    $("zoom-fit").addEventListener("click", function () { zoom = 1; layoutTimeline(); draw(); });
    window.addEventListener("resize", function () { layoutTimeline(); queueDraw(); });

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

    """# + tableAndDetailsScript
}
