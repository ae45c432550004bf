#!/usr/bin/env bash
# How long `oprun report`'s page of a 10,000-job run takes to open in headless Chromium: the
# page against an empty one (Chromium's own start-up), hyperfine, from writing the events to
# the page's load event (`--dump-dom` waits for it and for the page's script).
# Needs chromium and hyperfine (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
N=${N:-10000}
RUNS=${RUNS:-5}
source Benchmarks/need.sh
need hyperfine hyperfine
need chromium chromium
scratch_folder
python3 Benchmarks/gen-graphs.py layered "$N" "$work"
(cd "$work" && "$OPRUN" -q --no-journal -j 2 layered.yaml --events events.ndjson >/dev/null)
/usr/bin/time -f "oprun report: %e s, %M KB peak" "$OPRUN" report "$work/events.ndjson" --html "$work/report.html"
printf '<!doctype html><title>empty</title>\n' >"$work/empty.html"
echo "page: $(du -k "$work/report.html" | cut -f1) KB for $N jobs"
browser="chromium --headless --no-sandbox --disable-gpu --dump-dom"
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$work/report.json" \
  -n empty "$browser file://$work/empty.html" -n report "$browser file://$work/report.html" >/dev/null 2>&1
python3 - "$work/report.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"headless chromium to the load event: empty page {r['empty']:.2f} s, report {r['report']:.2f} s "
      f"(the page itself {r['report'] - r['empty']:.2f} s)")
PY
