extension HTMLReport {
  /// The page: markup, style and script, with ``dataSlot`` where the run's JSON goes. It
  /// loads nothing: no font, no script, no image from anywhere.
  ///
  /// The script marks the `<html>` element for whoever reads the page back: `data-ready` once
  /// everything is drawn, `data-drawn-ms` (milliseconds since navigation started) at that
  /// moment, and `data-errors` with any uncaught error. The timeline is a canvas; the bars
  /// it shows are also listed, as text, in a visually hidden list (`#bar-list`, one item per
  /// bar with its `data-job`, `data-x` and `data-width`) for screen readers and tests; the
  /// time window in view is `#timeline-window` (see ``timelineScript``). The job table's
  /// sortable headers carry `data-sort` and `aria-sort`; `#job-filter` and `#outcome-filter`
  /// choose its rows.
  static let template = pageHead + pageBody + pageScript

  private static let pageHead = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>oprun report</title>
    <script>
    window.onerror = function (message, source, line) {
      var root = document.documentElement;
      root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + message + " (line " + line + ")\n");
    };
    </script>
    <style>
    :root {
      --bg: #f6f7f9; --panel: #fff; --ink: #1f2328; --muted: #656d76; --line: #d8dee4;
      --succeeded: #2da44e; --failed: #cf222e; --timed-out: #e16f24; --cancelled: #8c959f;
      --skipped: #c9d1d9; --retried: #d4a72c; --running: #0969da; --critical: #8250df;
    }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--ink);
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
    main { max-width: 1600px; margin: 0 auto; padding: 16px 20px 40px; }
    header { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin-bottom: 12px; }
    h1 { font-size: 20px; margin: 0; font-weight: 600; }
    h1 .run { color: var(--muted); font-weight: 400; font-family: ui-monospace, Menlo, Consolas, monospace; }
    h2 { font-size: 15px; margin: 0 0 8px; font-weight: 600; }
    section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
      margin-bottom: 12px; }
    .badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-weight: 600; font-size: 13px;
      color: #fff; }
    .badge.ok { background: var(--succeeded); } .badge.bad { background: var(--failed); }
    .badge.cut { background: var(--timed-out); }
    .cards { display: flex; flex-wrap: wrap; gap: 8px; }
    .card { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 96px; }
    .card .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
    .card .label { color: var(--muted); font-size: 12px; }
    .card .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; }
    .note { color: var(--muted); margin: 8px 0 0; }
    .cutoff { color: #9a3412; font-weight: 600; }
    #failure-list { margin: 0; padding-left: 18px; }
    #failure-list li { margin: 2px 0; }
    pre.output { margin: 4px 0 8px; padding: 6px 8px; background: #f6f8fa; border: 1px solid var(--line);
      border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere;
      font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
    pre.output.scrolled { max-height: 24em; overflow: auto; }
    pre.output .earlier { color: var(--muted); }
    a.job { color: var(--running); cursor: pointer; text-decoration: none; font-weight: 500; }
    a.job:hover { text-decoration: underline; }
    .mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
    .path { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
    .path .arrow { color: var(--muted); }
    .toolbar { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; margin-bottom: 8px; }
    .toolbar h2 { margin: 0 8px 0 0; }
    button { font: inherit; font-size: 13px; border: 1px solid var(--line); background: #f6f8fa; border-radius: 6px;
      padding: 2px 10px; cursor: pointer; }
    button:hover { background: #eaeef2; }
    .legend { display: flex; gap: 10px; flex-wrap: wrap; margin-left: auto; color: var(--muted); font-size: 12px; }
    .legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 2px;
      margin-right: 4px; vertical-align: -1px; background: var(--c); }
    #scroller { position: relative; overflow: auto; border: 1px solid var(--line); border-radius: 6px;
      max-height: 62vh; background: #fff; }
    #canvas { position: absolute; left: 0; top: 0; display: block; }
    #memory-strip { margin-top: 8px; }
    #memory-box { border: 1px solid var(--line); border-radius: 6px; background: #fff; overflow: hidden; }
    #memory-canvas { display: block; }
    .visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden;
      clip: rect(0 0 0 0); white-space: nowrap; }
    #table-scroller { position: relative; overflow: auto; border: 1px solid var(--line); border-radius: 6px;
      max-height: 480px; }
    .row { display: grid; grid-template-columns: minmax(180px, 2.4fr) 1fr 1fr 0.7fr 0.7fr 0.9fr 0.9fr 0.9fr 1.6fr;
      align-items: center; height: 26px; padding: 0 10px; border-bottom: 1px solid #eef1f4; white-space: nowrap; }
    .row > * { overflow: hidden; text-overflow: ellipsis; padding-right: 8px; }
    .row.head { position: sticky; top: 0; z-index: 1; background: #f6f8fa; font-weight: 600; font-size: 12px;
      color: var(--muted); border-bottom: 1px solid var(--line); }
    .row.head [data-sort] { cursor: pointer; user-select: none; }
    .row.head [data-sort]:hover { color: var(--ink); }
    .row.head [aria-sort=ascending]::after { content: " ▲"; }
    .row.head [aria-sort=descending]::after { content: " ▼"; }
    .count { color: var(--muted); font-weight: 400; }
    .window { color: var(--muted); font-size: 12px; margin: 0 0 6px; }
    input[type=search], select { font: inherit; font-size: 13px; border: 1px solid var(--line); border-radius: 6px;
      padding: 2px 8px; background: #fff; }
    input[type=search] { width: 220px; }
    .row.body { position: absolute; left: 0; right: 0; cursor: pointer; }
    .row.body:hover { background: #f3f6fb; }
    .row.body.selected { background: #ddf4ff; }
    .num { text-align: right; font-variant-numeric: tabular-nums; }
    .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 6px; }
    .crit { color: var(--critical); font-weight: 700; margin-left: 4px; }
    #details { position: fixed; right: 16px; top: 16px; width: 380px; max-height: calc(100vh - 32px); overflow: auto;
      background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px;
      box-shadow: 0 8px 24px rgba(31, 35, 40, .18); z-index: 10; }
    #details h3 { margin: 0 28px 6px 0; font-size: 16px; word-break: break-all; }
    #details dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; margin: 8px 0; }
    #details dt { color: var(--muted); } #details dd { margin: 0; word-break: break-word; }
    #details ol { margin: 4px 0 0; padding-left: 20px; }
    #details .close { position: absolute; right: 10px; top: 10px; }
    </style>
    </head>

    """#

  private static let pageBody = #"""
    <body>
    <main>
    <header>
      <h1>oprun report <span class="run" id="run-id"></span></h1>
      <span id="status" class="badge"></span>
    </header>
    <section id="summary">
      <div class="cards" id="cards"></div>
      <p class="note" id="summary-note"></p>
    </section>
    <section id="failures" hidden>
      <h2>Failures</h2>
      <ul id="failure-list"></ul>
    </section>
    <section id="critical">
      <h2>Critical path</h2>
      <div class="path" id="critical-path"></div>
    </section>
    <section id="matrices" hidden>
      <h2>Matrix jobs</h2>
      <ul id="matrix-list"></ul>
    </section>
    <section id="timeline">
      <div class="toolbar">
        <h2>Timeline</h2>
        <button id="zoom-out" title="Zoom out">−</button>
        <button id="zoom-in" title="Zoom in (or Ctrl + wheel)">+</button>
        <button id="zoom-fit" title="The whole run">Fit</button>
        <div class="legend" id="legend"></div>
      </div>
      <p class="window" id="timeline-window"></p>
      <div id="scroller"><div id="sizer"></div><canvas id="canvas" role="img"
        aria-label="Gantt timeline of the run: one row per lane of each queue"></canvas></div>
      <ul id="bar-list" class="visually-hidden" aria-label="Timeline bars"></ul>
      <div id="memory-strip" hidden>
        <p class="window" id="memory-label"></p>
        <div id="memory-box"><canvas id="memory-canvas" role="img"></canvas></div>
      </div>
    </section>
    <section id="jobs">
      <div class="toolbar">
        <h2>Jobs <span class="count" id="jobs-count"></span></h2>
        <input id="job-filter" type="search" placeholder="Filter by name" aria-label="Show the jobs whose name contains">
        <select id="outcome-filter" aria-label="Show the jobs that ended so"><option value="all">every outcome</option></select>
      </div>
      <div id="table-scroller" role="table" aria-label="Jobs">
        <div class="row head" role="row"><span data-sort="name">job</span><span data-sort="queue">queue</span>
          <span data-sort="outcome">outcome</span><span class="num" data-sort="exit">exit</span>
          <span class="num" data-sort="attempts">attempts</span><span class="num" data-sort="start">started</span>
          <span class="num" data-sort="duration">duration</span><span class="num" data-sort="memory">memory</span>
          <span>ready after</span></div>
        <div id="table-body"></div>
      </div>
    </section>
    </main>
    <aside id="details" hidden aria-live="polite">
      <button class="close" id="details-close" title="Close">×</button>
      <div id="details-body"></div>
    </aside>

    """#
}
