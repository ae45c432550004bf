#!/usr/bin/env bash
# --watch (SPEC §13): oprun's CPU while it waits over 10,000 watched files in 100 folders
# (clock ticks of user and system time over 10 s, from /proc/PID/stat), and the time from a
# write to the `executing` event of the job that reads the file, at the default 100 ms delay,
# over 20 edits (the reader polls the events file every 0.5 ms, which it adds at most).
set -euo pipefail
cd "$(dirname "$0")/.."
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
source Benchmarks/need.sh
scratch_folder
python3 - "$OPRUN" "$work" <<'PY'
import json, os, signal, statistics, subprocess, sys, time
oprun, work = sys.argv[1], sys.argv[2]
for folder in range(100):
    os.makedirs(f"{work}/src/d{folder}")
    for index in range(100):
        with open(f"{work}/src/d{folder}/f{index}.txt", "w") as f:
            f.write(f"{folder} {index}\n")
with open(f"{work}/jobs.yaml", "w") as f:
    f.write("jobs:\n  build:\n    command: cat src/d0/f0.txt > out.txt\n    inputs: [src/]\n    outputs: [out.txt]\n")
events = f"{work}/events.ndjson"
process = subprocess.Popen([oprun, "--watch", "-q", "--events", events, "jobs.yaml"], cwd=work,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def lines():
    try:
        with open(events) as f:
            return [json.loads(line) for line in f if line.endswith("\n")]
    except FileNotFoundError:
        return []
def wait_for(count, name):
    while sum(1 for e in lines() if e["event"] == name) < count:
        time.sleep(0.01)
def ticks():
    fields = open(f"/proc/{process.pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])
wait_for(1, "watch-waiting")
files = lines()[-1]["files"]
before = ticks()
time.sleep(10)
idle = ticks() - before
latencies = []
for edit in range(20):
    wait_for(edit + 1, "watch-waiting")
    size = os.path.getsize(events)
    with open(events) as f:
        f.seek(size)
        start = time.monotonic()
        with open(f"{work}/src/d{edit % 100}/f0.txt", "w") as g:
            g.write(f"edit {edit}\n")
        buffer = ""
        while '"to":"executing"' not in buffer:
            buffer += f.read()
            time.sleep(0.0005)
        latencies.append((time.monotonic() - start) * 1000)
process.send_signal(signal.SIGINT)
process.wait()
print(f"waiting over {files} watched files: {idle} clock ticks of CPU in 10 s")
print(f"a write to the job's executing event, 20 edits, --watch-delay 100: median {statistics.median(latencies):.1f} ms, "
      f"max {max(latencies):.1f} ms")
PY
