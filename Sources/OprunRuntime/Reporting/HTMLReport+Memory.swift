extension HTMLReport {
  /// The strip of memory in use over time under the timeline (SPEC §12): each attempt at the
  /// peak its figures give, from its start to its end, summed — an upper bound, which the
  /// label says — drawn on the timeline's own time scale, so that it follows its zoom and
  /// scrolling. Hidden when the stream gives no figures. `#memory-canvas` carries
  /// `data-peak` (bytes) and an `aria-label` with the largest amount.
  static let memoryScript = #"""
    // ---- memory in use over time, under the timeline
    var MEMORY_HEIGHT = 64, memorySteps = data.memory || [];
    var memoryCanvas = $("memory-canvas"), memoryContext = memoryCanvas.getContext("2d");
    if (memorySteps.length) {
      $("memory-strip").hidden = false;
      $("memory-label").textContent = "Memory in use, each job counted at its peak while it runs: at most " +
        data.memory_peak_text;
      memoryCanvas.setAttribute("data-peak", String(data.memory_peak));
      memoryCanvas.setAttribute("aria-label", "Memory in use over time, at most " + data.memory_peak_text);
    }
    function drawMemory(scale, left) {
      if (!memorySteps.length) return;
      var ratio = window.devicePixelRatio || 1, width = scroller.clientWidth, height = MEMORY_HEIGHT;
      memoryCanvas.style.width = width + "px"; memoryCanvas.style.height = height + "px";
      if (memoryCanvas.width !== Math.round(width * ratio)) memoryCanvas.width = Math.round(width * ratio);
      if (memoryCanvas.height !== Math.round(height * ratio)) memoryCanvas.height = Math.round(height * ratio);
      memoryContext.setTransform(ratio, 0, 0, ratio, 0, 0);
      memoryContext.clearRect(0, 0, width, height);
      function x(t) { return GUTTER + t * scale - left; }
      function y(bytes) { return height - 2 - (height - 8) * bytes / data.memory_peak; }
      memoryContext.save();
      memoryContext.beginPath(); memoryContext.rect(GUTTER, 0, width - GUTTER, height); memoryContext.clip();
      memoryContext.beginPath();
      memoryContext.moveTo(x(memorySteps[0].t), y(0));
      memorySteps.forEach(function (step, index) {
        var next = index + 1 < memorySteps.length ? memorySteps[index + 1].t : runEnd;
        memoryContext.lineTo(x(step.t), y(step.bytes));
        memoryContext.lineTo(x(next), y(step.bytes));
      });
      memoryContext.lineTo(x(runEnd), y(0));
      memoryContext.closePath();
      memoryContext.fillStyle = "rgba(130, 80, 223, 0.25)"; memoryContext.fill();
      memoryContext.strokeStyle = "#8250df"; memoryContext.lineWidth = 1; memoryContext.stroke();
      memoryContext.restore();
      memoryContext.fillStyle = "#656d76"; memoryContext.font = "12px system-ui, sans-serif";
      memoryContext.textBaseline = "top"; memoryContext.fillText(data.memory_peak_text, 8, 4);
      memoryContext.textBaseline = "bottom"; memoryContext.fillText("0", 8, height - 2);
    }

    """#
}
