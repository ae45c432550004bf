#!/usr/bin/env bash
# The cost of a job at every size: N trivial jobs (flat, chain, layered) at -j 2 for each N in
# SIZES, the spawn floor, make, ninja and oprun in one hyperfine run per graph. Prints each
# tool's time, its cost per job (time / N) and oprun's ratio to make, then names every cost per
# job that grew by more than 30 % from one size to the next (a cost that grows with the graph).
# SIZES="1000 10000 100000" by default; RUNS hyperfine runs per command (default 5; 2 past
# 50,000 jobs). Needs hyperfine, ninja, cc (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
SIZES=${SIZES:-1000 10000 100000}
SHAPES=${SHAPES:-flat chain layered}
RUNS=${RUNS:-5}
source Benchmarks/need.sh
need hyperfine hyperfine
need ninja ninja-build
need cc gcc

scratch_folder
cc -O2 -o "$work/spawn-floor" Benchmarks/spawn-floor.c

echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') · sizes $SIZES"
printf '%-8s %7s  %-28s %-28s %-28s %-28s %s\n' shape jobs "floor ms (µs/job)" "make" "ninja" "oprun" "oprun/make"
for shape in $SHAPES; do
  for n in $SIZES; do
    runs=$RUNS; [ "$n" -gt 50000 ] && [ "$RUNS" -gt 2 ] && runs=2
    python3 Benchmarks/gen-graphs.py "$shape" "$n" "$work"
    width=2; [ "$shape" = chain ] && width=1
    (cd "$work" && hyperfine -N --warmup 1 --runs "$runs" --export-json "$shape-$n.json" \
      -n floor "$work/spawn-floor $n $width /bin/true direct" \
      -n make "make -s -j 2 -f $shape.mk" \
      -n ninja "ninja -j 2 -f $shape.ninja" \
      -n oprun "$OPRUN -j 2 -q --no-journal $shape.yaml" >/dev/null)
    python3 - "$work/$shape-$n.json" "$shape" "$n" >>"$work/rows" <<'PY'
import json, sys
path, shape, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = {x["command"]: x["median"] * 1000 for x in json.load(open(path))["results"]}
print(json.dumps({"shape": shape, "n": n, **r}))
PY
    tail -1 "$work/rows" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
cell = lambda k: f"{r[k]:9.1f} ({r[k] * 1000 / r['"'"'n'"'"']:6.1f})"
print(f"{r['"'"'shape'"'"']:<8} {r['"'"'n'"'"']:7d}  " + "  ".join(f"{cell(k):<26}" for k in ("floor", "make", "ninja", "oprun"))
      + f"   {r['"'"'oprun'"'"'] / r['"'"'make'"'"']:.2f}")'
  done
done
python3 - "$work/rows" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
grew = []
for a, b in zip(rows, rows[1:]):
    if a["shape"] != b["shape"]:
        continue
    for tool in ("make", "ninja", "oprun"):
        before, after = a[tool] / a["n"], b[tool] / b["n"]
        if after > before * 1.3:
            grew.append(f"{tool} on {b['shape']}: {before * 1000:.1f} µs a job at {a['n']:,} → {after * 1000:.1f} at {b['n']:,} (+{(after / before - 1) * 100:.0f} %)")
print("grew by more than 30 % from one size to the next: " + ("none" if not grew else ""))
for line in grew:
    print("  " + line)
PY
