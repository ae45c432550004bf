extension HTMLReport {
  /// The timeline's script: a canvas the size of the view over a sizer the size of the
  /// whole run, zoomed with −, +, Fit, Ctrl + wheel or by dragging a range on the time axis.
  ///
  /// Each queue is drawn in one of three ways, chosen again at every zoom: a row per lane
  /// with each job named (`lanes`); thinner rows, each job still a bar, when it has more than
  /// 16 lanes (`packed`); or, while its bars would be under a few pixels wide, one band of how
  /// many of its jobs ran at each moment, stacked by outcome, failures at the bottom
  /// (`density`) — zooming in, or clicking the band, brings its jobs back one by one. The
  /// time window in view and each queue's way are written out (`#timeline-window`, with
  /// `data-start`, `data-end` and `data-modes`) for whoever reads the page back.
  static let timelineScript = #"""
    // ---- timeline
    var GUTTER = 170, AXIS = 26, ROW = 26, RIGHT = 96, MAX_LISTED = 1000;
    // A queue with more lanes than this is packed; one whose bars would get less than
    // MIN_SLOT pixels each on average is drawn as its density, in columns of BUCKET pixels.
    var MAX_LANES = 16, MIN_SLOT = 8, BUCKET = 2;
    var DENSITY_ORDER = ["failed", "timed-out", "cancelled", "retried", "running", "skipped", "succeeded"];
    var scroller = $("scroller"), sizer = $("sizer"), canvas = $("canvas"), context = canvas.getContext("2d");
    var zoom = 1, drawQueued = false, brush = null;
    var barsOfQueue = queues.map(function () { return 0; });
    bars.forEach(function (bar) { barsOfQueue[queueOfRow[bar.row].queue]++; });
    // Per queue: its way of drawing, its top and height in the timeline, the height of a lane.
    var shapes = [], lanesHeight = 0;
    function fitWidth() { return Math.max(200, scroller.clientWidth - GUTTER - RIGHT); }
    function contentWidth() { return fitWidth() * zoom; }
    function pixelsPerSecond() { return contentWidth() / runEnd; }
    function maxZoom() { return 5e6 / Math.max(scroller.clientWidth, 1); }
    function shapeFor(index, width) {
      var lanes = queues[index].lanes, count = barsOfQueue[index];
      if (count && width * lanes / count < MIN_SLOT) return { mode: "density", lane: ROW, height: Math.min(Math.max(lanes, 2), 3) * ROW };
      if (lanes > MAX_LANES) {
        var lane = Math.max(6, Math.floor(MAX_LANES * ROW / lanes));
        return { mode: "packed", lane: lane, height: lanes * lane };
      }
      return { mode: "lanes", lane: ROW, height: lanes * ROW };
    }
    function shapeQueues() {
      var top = 0, width = contentWidth();
      shapes = queues.map(function (queue, index) {
        var shape = shapeFor(index, width);
        shape.top = top;
        top += shape.height;
        return shape;
      });
      lanesHeight = top;
    }
    // The zoom at which a queue's jobs are drawn one by one.
    function zoomShowingJobsOf(index) {
      var lanes = queues[index].lanes, count = barsOfQueue[index];
      return lanes ? Math.max(1, MIN_SLOT * count / (lanes * fitWidth()) * 1.05) : 1;
    }
    function rowTop(row) {
      var place = queueOfRow[row], shape = shapes[place.queue];
      return shape.mode === "density" ? shape.top : shape.top + place.lane * shape.lane;
    }
    function rowHeight(row) {
      var shape = shapes[queueOfRow[row].queue];
      return shape.mode === "density" ? shape.height : shape.lane;
    }
    function layoutTimeline() {
      shapeQueues();
      var height = AXIS + Math.max(lanesHeight, ROW) + 4;
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
      function y(contentY) { return AXIS + contentY - top; }
      var t0 = Math.max(0, (left - 2) / scale), t1 = (left + width - GUTTER + 2) / scale + 1e-9;
      var step = niceStep(90 / scale);
      // Each queue's lanes in view, as rows.
      var shown = queues.map(function (queue, index) {
        var shape = shapes[index];
        if (!queue.lanes || shape.top > top + height - AXIS || shape.top + shape.height < top) return null;
        if (shape.mode === "density") return { first: queue.first_row, last: queue.first_row + queue.lanes - 1 };
        return {
          first: queue.first_row + Math.max(0, Math.floor((top - shape.top) / shape.lane)),
          last: queue.first_row + Math.min(queue.lanes - 1, Math.floor((top + height - AXIS - shape.top) / shape.lane))
        };
      });
      // rows, suspensions, grid
      queues.forEach(function (queue, index) {
        var shape = shapes[index];
        if (!shown[index]) return;
        if (shape.mode === "density") {
          context.fillStyle = "#f6f8fa"; context.fillRect(GUTTER, y(shape.top), width, shape.height);
          return;
        }
        for (var row = shown[index].first; row <= shown[index].last; row++) {
          if ((row - queue.first_row) % 2) { context.fillStyle = "#fafbfc"; context.fillRect(GUTTER, y(rowTop(row)), width, shape.lane); }
        }
      });
      queues.forEach(function (queue, index) {
        var top0 = y(shapes[index].top), bottom = top0 + shapes[index].height;
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
      // bars, or each dense queue's band
      var listed = [], hidden = 0;
      queues.forEach(function (queue, index) {
        if (!shown[index]) return;
        if (shapes[index].mode === "density") { drawDensity(index, x, y(shapes[index].top), t0, t1, width); return; }
        for (var row = shown[index].first; row <= shown[index].last; row++) {
          var list = rowBars[row], lane = shapes[index].lane, pad = lane >= 20 ? 3 : 1;
          for (var i = firstBarEndingAfter(list, t0); i < list.length; i++) {
            var bar = bars[list[i]];
            if (bar.start > t1) break;
            var barX = x(bar.start), barWidth = Math.max((bar.end - bar.start) * scale, 1.5);
            var barY = y(rowTop(row)) + pad, barHeight = lane - 2 * pad;
            var next = i + 1 < list.length ? x(bars[list[i + 1]].start) : x(runEnd) + RIGHT;
            drawBar(bar, barX, barWidth, barY, barHeight, lane >= 20 ? next : null, x, scale);
            if (listed.length < MAX_LISTED) listed.push({ bar: bar, x: barX + left, width: barWidth }); else hidden++;
          }
        }
      });
      drawCriticalLinks(x, y);
      if (brush) {
        context.fillStyle = "rgba(9, 105, 218, 0.15)";
        context.fillRect(Math.min(brush.from, brush.to), 0, Math.abs(brush.to - brush.from), height);
      }
      drawGutterAndAxis(shown, y, x, t0, t1, step, width, height);
      showWindow(t0, t1);
      listBars(listed, hidden);
      drawMemory(scale, left);
    }
    function drawBar(bar, barX, barWidth, barY, barHeight, next, x, scale) {
      var job = jobs[bar.job];
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
      // The name inside the bar, or after it when the bar is narrow and the lane free there;
      // a packed lane (next === null) has no room for names.
      if (next === null) return;
      var inside = barWidth > 34, room = Math.floor(((inside ? barWidth : next - barX - barWidth - 4) - 8) / 6.6);
      if (room >= 4) {
        var label = job.name.length > room ? job.name.slice(0, room - 1) + "…" : job.name;
        context.fillStyle = inside && bar.state !== "skipped" ? "#fff" : "#1f2328";
        context.fillText(label, inside ? barX + 4 : barX + barWidth + 4, barY + barHeight / 2 + 0.5);
      }
    }
    // How many of the queue's attempts ran in each column of BUCKET pixels, stacked by
    // state, a full column being every lane busy.
    function densityColumns(index, x, t0, t1, width) {
      var queue = queues[index], columns = Math.ceil((width - GUTTER) / BUCKET) + 1, counts = {};
      DENSITY_ORDER.forEach(function (state) { counts[state] = new Float32Array(columns); });
      for (var row = queue.first_row; row < queue.first_row + queue.lanes; row++) {
        var list = rowBars[row];
        for (var i = firstBarEndingAfter(list, t0); i < list.length; i++) {
          var bar = bars[list[i]];
          if (bar.start > t1) break;
          var series = counts[bar.state] || counts.running;
          var from = Math.max(0, Math.floor((x(bar.start) - GUTTER) / BUCKET));
          var to = Math.min(columns - 1, Math.floor((x(bar.end) - GUTTER) / BUCKET));
          for (var column = from; column <= to; column++) series[column] += 1;
        }
      }
      return { columns: columns, counts: counts };
    }
    function drawDensity(index, x, top, t0, t1, width) {
      var lanes = queues[index].lanes, height = shapes[index].height - 4, density = densityColumns(index, x, t0, t1, width);
      for (var column = 0; column < density.columns; column++) {
        var total = 0;
        DENSITY_ORDER.forEach(function (state) { total += density.counts[state][column]; });
        if (!total) continue;
        var unit = height / Math.max(lanes, total), bottom = top + 2 + height;
        DENSITY_ORDER.forEach(function (state) {
          var count = density.counts[state][column];
          if (!count) return;
          // A failure keeps at least two pixels, however many jobs share its column.
          var size = Math.max(count * unit, state === "failed" || state === "timed-out" ? 2 : 0);
          context.fillStyle = COLORS[state] || COLORS.running;
          context.fillRect(GUTTER + column * BUCKET, bottom - size, BUCKET, size);
          bottom -= size;
        });
      }
    }
    function drawCriticalLinks(x, y) {
      var path = data.critical_path;
      context.strokeStyle = CRITICAL; context.lineWidth = 1.5; context.setLineDash([4, 3]);
      context.beginPath();
      for (var i = 1; i < path.length; i++) {
        var before = barsOfJob[path[i - 1]], after = barsOfJob[path[i]];
        if (!before.length || !after.length) continue;
        var from = bars[before[before.length - 1]], to = bars[after[0]];
        var fromX = x(from.end), fromY = y(rowTop(from.row) + rowHeight(from.row) / 2);
        var toX = x(to.start), toY = y(rowTop(to.row) + rowHeight(to.row) / 2);
        context.moveTo(fromX, fromY); context.lineTo(fromX + 4, fromY); context.lineTo(fromX + 4, toY); context.lineTo(toX, toY);
      }
      context.stroke();
      context.setLineDash([]);
    }
    // The gutter and the axis stay fixed while the bars scroll under them.
    function drawGutterAndAxis(shown, y, x, t0, t1, step, width, height) {
      context.fillStyle = "#fff"; context.fillRect(0, 0, GUTTER, height);
      context.strokeStyle = "#d8dee4"; context.beginPath();
      context.moveTo(GUTTER - 0.5, 0); context.lineTo(GUTTER - 0.5, height); context.stroke();
      queues.forEach(function (queue, index) {
        if (!shown[index]) return;
        var shape = shapes[index], queueTop = y(shape.top);
        context.strokeStyle = "#d8dee4"; context.beginPath();
        context.moveTo(0, Math.round(queueTop) + 0.5); context.lineTo(width, Math.round(queueTop) + 0.5); context.stroke();
        context.fillStyle = "#1f2328"; context.font = "600 12px system-ui, sans-serif";
        var name = queue.name.length > 16 ? queue.name.slice(0, 15) + "…" : queue.name;
        context.fillText(name, 8, queueTop + ROW / 2);
        context.fillStyle = "#656d76"; context.font = "12px system-ui, sans-serif";
        if (shape.mode === "density") {
          context.fillText(barsOfQueue[index] + " attempts", 8, queueTop + ROW * 1.5);
          context.textAlign = "right";
          context.fillText(queue.lanes + " lane" + (queue.lanes === 1 ? "" : "s"), GUTTER - 8, queueTop + ROW / 2);
        } else if (shape.mode === "packed") {
          context.fillText(queue.lanes + " lanes", 8, queueTop + ROW * 1.5);
        } else {
          context.textAlign = "right";
          for (var row = shown[index].first; row <= shown[index].last; row++) {
            context.fillText("lane " + (queueOfRow[row].lane + 1), GUTTER - 8, y(rowTop(row)) + ROW / 2);
          }
        }
        context.textAlign = "left";
      });
      context.fillStyle = "#f6f8fa"; context.fillRect(0, 0, width, AXIS);
      context.strokeStyle = "#d8dee4"; context.beginPath();
      context.moveTo(0, AXIS - 0.5); context.lineTo(width, AXIS - 0.5); context.stroke();
      context.fillStyle = "#656d76"; context.font = "11px system-ui, sans-serif";
      for (var tick = Math.floor(t0 / step) * step; tick <= t1; tick += step) {
        var labelX = x(tick);
        if (labelX < GUTTER || labelX + 44 > width) continue;
        context.fillText(tick === 0 ? "0" : seconds(tick).replace(" ", ""), labelX + 3, AXIS / 2);
      }
      context.fillStyle = "#1f2328"; context.font = "600 12px system-ui, sans-serif";
      context.fillText(data.rows ? "queue · lane" : "no job ran", 8, AXIS / 2);
    }
    // The time window in view, and which queues are drawn as their density, in words.
    function showWindow(t0, t1) {
      var from = Math.min(Math.max(0, t0), runEnd), to = Math.min(t1, runEnd), note = $("timeline-window");
      var dense = queues.filter(function (queue, index) { return shapes[index].mode === "density"; });
      var words = at(from) + " – " + at(to) + " of " + seconds(data.end);
      if (dense.length) {
        words += " · " + dense.map(function (queue) { return queue.name; }).join(", ") +
          ": how many jobs ran at once — zoom in, or click the band, for each job";
      }
      note.textContent = words;
      note.setAttribute("data-start", from.toFixed(4));
      note.setAttribute("data-end", to.toFixed(4));
      note.setAttribute("data-modes", shapes.map(function (shape) { return shape.mode; }).join(" "));
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
    // What is under the pointer: { bar } on a lane, { queue } on a density band, or null.
    function pointedAt(event) {
      var bounds = canvas.getBoundingClientRect();
      var offsetX = event.clientX - bounds.left, offsetY = event.clientY - bounds.top;
      if (offsetX < GUTTER || offsetY < AXIS) return null;
      var scale = pixelsPerSecond();
      var time = (offsetX - GUTTER + scroller.scrollLeft) / scale, slack = 3 / scale;
      var contentY = offsetY - AXIS + scroller.scrollTop;
      for (var index = 0; index < queues.length; index++) {
        var shape = shapes[index];
        if (contentY < shape.top || contentY >= shape.top + shape.height) continue;
        if (shape.mode === "density") return { queue: index, x: offsetX };
        var list = rowBars[queues[index].first_row + Math.floor((contentY - shape.top) / shape.lane)] || [];
        for (var i = firstBarEndingAfter(list, time - slack); i < list.length; i++) {
          var bar = bars[list[i]];
          if (bar.start > time + slack) break;
          return { bar: bar };
        }
        return null;
      }
      return null;
    }
    function timeAt(offsetX) { return Math.max(0, (offsetX - GUTTER + scroller.scrollLeft) / pixelsPerSecond()); }
    canvas.addEventListener("mousemove", function (event) {
      var bounds = canvas.getBoundingClientRect(), offsetX = event.clientX - bounds.left;
      if (brush) { brush.to = Math.max(offsetX, GUTTER); draw(); return; }
      var found = pointedAt(event), onAxis = event.clientY - bounds.top < AXIS && offsetX >= GUTTER;
      canvas.title = found && found.bar ? describe(found.bar)
        : found ? queues[found.queue].name + ": click to zoom in on its jobs"
        : onAxis ? "drag along the axis to zoom to that time" : "";
      canvas.style.cursor = found ? (found.bar ? "pointer" : "zoom-in") : onAxis ? "col-resize" : "default";
    });
    canvas.addEventListener("mousedown", function (event) {
      var bounds = canvas.getBoundingClientRect(), offsetX = event.clientX - bounds.left;
      if (event.clientY - bounds.top >= AXIS || offsetX < GUTTER) return;
      event.preventDefault();
      brush = { from: offsetX, to: offsetX };
    });
    window.addEventListener("mouseup", function () {
      if (!brush) return;
      var from = timeAt(Math.min(brush.from, brush.to)), to = timeAt(Math.max(brush.from, brush.to)), wide = Math.abs(brush.to - brush.from) > 4;
      brush = null;
      if (wide) zoomTo(from, to); else draw();
    });
    canvas.addEventListener("click", function (event) {
      var found = pointedAt(event);
      if (!found) return;
      if (found.bar) { select(found.bar.job, false); return; }
      zoomBy(Math.max(zoomShowingJobsOf(found.queue) / zoom, 2), found.x);
    });
    scroller.addEventListener("scroll", queueDraw);
    scroller.addEventListener("wheel", function (event) {
      if (!event.ctrlKey && !event.metaKey) return;
      event.preventDefault();
      var bounds = canvas.getBoundingClientRect();
      zoomBy(event.deltaY < 0 ? 1.25 : 0.8, event.clientX - bounds.left);
    }, { passive: false });
    function clampZoom(value) { return Math.min(Math.max(value, 1), maxZoom()); }
    // Zooms by `factor` keeping the moment under `anchorX` (the middle of the view if none) in place.
    function zoomBy(factor, anchorX) {
      var anchor = anchorX === undefined ? GUTTER + (scroller.clientWidth - GUTTER) / 2 : Math.max(anchorX, GUTTER);
      var time = (anchor - GUTTER + scroller.scrollLeft) / pixelsPerSecond();
      zoom = clampZoom(zoom * factor);
      layoutTimeline();
      scroller.scrollLeft = time * pixelsPerSecond() - (anchor - GUTTER);
      draw();
    }
    // Shows the time from `from` to `to` across the view.
    function zoomTo(from, to) {
      zoom = clampZoom((scroller.clientWidth - GUTTER) / fitWidth() * runEnd / Math.max(to - from, 1e-9));
      layoutTimeline();
      scroller.scrollLeft = from * pixelsPerSecond();
      draw();
    }
    $("zoom-in").addEventListener("click", function () { zoomBy(2); });
    $("zoom-out").addEventListener("click", function () { zoomBy(0.5); });
    $("zoom-fit").addEventListener("click", function () { zoom = 1; layoutTimeline(); scroller.scrollLeft = 0; draw(); });
    window.addEventListener("resize", function () { layoutTimeline(); queueDraw(); });

    """#
}
