#!/usr/bin/env bash
# Makespans of graphs of sleeps at -j 8 and -j 2 against their ideal schedule, in one hyperfine run:
#  - sleepy: 40 × `sleep 0.05` in layers of 8 (each job needs two of the layer before), -j 8,
#    oprun beside make and ninja on the same graph; ideal = 5 layers × 0.05 s; and its floor:
#    the critical path alone, 5 sleeps one after another in one shell, which no runner can beat
#    (what starting and ending a `sleep` costs on this machine is in it); and the least a
#    runner can do on the whole graph, Benchmarks/sleepy-runner.c (spawn each job when its two
#    dependencies have exited, nothing else), which pays for eight sleeps starting at once;
#  - critical: 8 short jobs (0.1 s) listed before a chain of 4 long ones (0.2 s), -j 2: FIFO
#    fills both slots with the short ones first and the chain starts late (ideal 0.8 s, FIFO
#    1.2 s); `--schedule critical-path`, after one run has recorded the durations, starts
#    the chain's head at once.
# Needs hyperfine, ninja, cc (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
RUNS=${RUNS:-10}
source Benchmarks/need.sh
need hyperfine hyperfine
need ninja ninja-build
need cc gcc
scratch_folder
cc -O2 -o "$work/sleepy-runner" Benchmarks/sleepy-runner.c

python3 - "$work" <<'PY'
import sys
out = sys.argv[1]
layers, width = 5, 8
deps = lambda l, i: [] if l == 0 else sorted({f"j{l-1}_{i}", f"j{l-1}_{(i+3) % width}"})
with open(f"{out}/sleepy.yaml", "w") as f:
    f.write("name: sleepy\nmax-concurrent: 8\njobs:\n")
    for l in range(layers):
        for i in range(width):
            f.write(f"  j{l}_{i}:\n    command: sleep 0.05\n")
            if deps(l, i): f.write(f"    dependencies: [{', '.join(deps(l, i))}]\n")
with open(f"{out}/sleepy.mk", "w") as f:
    names = [f"j{l}_{i}" for l in range(layers) for i in range(width)]
    f.write(".PHONY: all " + " ".join(names) + "\nall: " + " ".join(names) + "\n")
    for l in range(layers):
        for i in range(width):
            f.write(f"j{l}_{i}: {' '.join(deps(l, i))}\n\t@sleep 0.05\n")
with open(f"{out}/sleepy.ninja", "w") as f:
    f.write("rule r\n  command = sleep 0.05\n")
    for l in range(layers):
        for i in range(width):
            d = deps(l, i)
            f.write(f"build j{l}_{i}: r" + (" | " + " ".join(d) if d else "") + "\n")
with open(f"{out}/critical.yaml", "w") as f:
    f.write("name: critical\nmax-concurrent: 2\njobs:\n")
    for i in range(8):
        f.write(f"  short{i}:\n    command: sleep 0.1\n")
    for i in range(4):
        f.write(f"  chain{i}:\n    command: sleep 0.2\n")
        if i: f.write(f"    dependencies: [chain{i-1}]\n")
PY
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · hyperfine, $RUNS runs each"
(cd "$work" && "$OPRUN" -q critical.yaml >/dev/null)   # records the durations critical-path weighs
(cd "$work" && hyperfine -N --warmup 1 --runs "$RUNS" --export-json schedule.json \
  -n "sleepy oprun -j 8" "$OPRUN -q --no-journal sleepy.yaml" \
  -n "sleepy make -j 8" "make -s -j 8 -f sleepy.mk" \
  -n "sleepy ninja -j 8" "ninja -j 8 -f sleepy.ninja" \
  -n "sleepy runner (C)" "$work/sleepy-runner" \
  -n "sleepy floor" "sh -c 'sleep 0.05; sleep 0.05; sleep 0.05; sleep 0.05; sleep 0.05'" \
  -n "critical fifo" "$OPRUN -q --no-journal critical.yaml" \
  -n "critical critical-path" "$OPRUN -q --no-journal --schedule critical-path critical.yaml" >/dev/null)
python3 - "$work/schedule.json" <<'PY'
import json, sys
ideal = {"sleepy": 5 * 0.05, "critical": 4 * 0.2}
for r in json.load(open(sys.argv[1]))["results"]:
    graph = r["command"].split()[0]
    print(f"{r['command']:<24} median {r['median']:.3f} s  ideal {ideal[graph]:.3f} s  "
          f"{(r['median'] / ideal[graph] - 1) * 100:+.1f} % over the ideal")
PY
