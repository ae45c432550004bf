#!/usr/bin/env bash
# The cost of a job at every size: N trivial jobs (flat, chain, layered) at -j 2 for each N in
# SIZES, the spawn floor, make, ninja and oprun side by side in interleaved rounds
# (Benchmarks/interleave.py: floor, make, ninja, oprun, floor, …, each figure the median of its
# rounds). Prints each tool's time, its cost per job over the floor ((tool − floor) / N, in µs)
# and oprun's ratio to make; then names every cost per job over the floor that grew by more than
# 30 % from one size to the next (a cost that grows with the graph), and oprun's cost at the
# largest size against its cost at the smallest.
#
# SIZES="1000 10000 100000" by default; SHAPES="flat chain layered"; RUNS rounds (default 5;
# BIG_RUNS, default 3 and no warm-up round, past 50,000 jobs, where one round of the four tools
# takes minutes). CPU_ROUNDS (default 1; 0 for none) more rounds under `perf stat -i` give each
# tool's own CPU time a job, its jobs' not counted: on a machine shared with other work, the
# wall time's cost over the floor swings by more than a runner's whole cost, and this does not.
# OPRUN_BASELINE=/path/to/another/oprun adds that binary to the same rounds.
# go-task is left out: one task costs it milliseconds, so 100,000 would take hours.
# Needs ninja, cc (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
SIZES=${SIZES:-1000 10000 100000}
SHAPES=${SHAPES:-flat chain layered}
RUNS=${RUNS:-5}
BIG_RUNS=${BIG_RUNS:-3}
CPU_ROUNDS=${CPU_ROUNDS:-1}
BASELINE=${OPRUN_BASELINE:-}
source Benchmarks/need.sh
need ninja ninja-build
need cc gcc

scratch_folder
cc -O2 -o "$work/spawn-floor" Benchmarks/spawn-floor.c

echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') · load $(cut -d' ' -f1-3 /proc/loadavg) · sizes $SIZES"
echo "each cell: median ms of the rounds (µs a job over the floor); the floor's cell: ms (µs a job)"
echo "go-task: not measured (milliseconds a task: 100,000 tasks would take hours)"
printf '%-8s %7s %6s  %-19s %-19s %-19s %-19s %s\n' shape jobs rounds "floor" "make" "ninja" "oprun" \
  "oprun/make${BASELINE:+  baseline}"
for shape in $SHAPES; do
  for n in $SIZES; do
    rounds=$RUNS warmup=1
    if [ "$n" -gt 50000 ]; then rounds=$BIG_RUNS warmup=0; fi
    python3 Benchmarks/gen-graphs.py "$shape" "$n" "$work"
    width=2; [ "$shape" = chain ] && width=1
    (cd "$work" && python3 "$ROOT/Benchmarks/interleave.py" --warmup "$warmup" --cpu-rounds "$CPU_ROUNDS" "$rounds" \
      "floor=$work/spawn-floor $n $width /bin/true direct" \
      "make=make -s -j 2 -f $shape.mk" \
      "ninja=ninja -j 2 -f $shape.ninja" \
      "oprun=$OPRUN -j 2 -q --no-journal $shape.yaml" \
      ${BASELINE:+"baseline=$BASELINE -j 2 -q --no-journal $shape.yaml"} >"$work/$shape-$n.json")
    python3 - "$work/$shape-$n.json" "$shape" "$n" "$rounds" >>"$work/rows" <<'PY'
import json, sys
path, shape, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
print(json.dumps({"shape": shape, "n": n, "rounds": rounds, **json.load(open(path))}))
PY
    python3 - "$work/rows" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readlines()[-1])
n, floor = r["n"], r["floor"]
over = lambda k: (r[k] - floor) * 1000 / n
cells = [f"{floor:9.1f} ({floor * 1000 / n:5.1f})"] + [f"{r[k]:9.1f} ({over(k):5.1f})" for k in ("make", "ninja", "oprun")]
extra = f"  {r['baseline']:9.1f} ({over('baseline'):5.1f})" if "baseline" in r else ""
print(f"{r['shape']:<8} {n:7d} {r['rounds']:6d}  " + " ".join(f"{c:<19}" for c in cells)
      + f"  {r['oprun'] / r['make']:.2f}" + extra)
PY
  done
done
python3 - "$work/rows" "$CPU_ROUNDS" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
CPU_ROUNDS = int(sys.argv[2])
over = lambda r, k: (r[k] - r["floor"]) * 1000 / r["n"]
# The machine's noise is about ±5 % of the floor: at 350 µs a job, a few µs. A growth that
# small is not named, however many per cent it is.
NOISE_US = 5.0
grew = []
for a, b in zip(rows, rows[1:]):
    if a["shape"] != b["shape"]:
        continue
    for tool in ("make", "ninja", "oprun"):
        before, after = over(a, tool), over(b, tool)
        if after > max(before, 0) * 1.3 and after - before > NOISE_US:
            grew.append(f"{tool} on {b['shape']}: {before:.1f} µs a job over the floor at {a['n']:,}"
                        f" → {after:.1f} at {b['n']:,}")
print(f"cost a job over the floor that grew by more than 30 % (and {NOISE_US:.0f} µs) from one size to the next: "
      + ("none" if not grew else ""))
for line in grew:
    print("  " + line)
tools = ["make", "ninja", "oprun"] + (["baseline"] if "baseline" in rows[0] else [])
if all(f"{tool} cpu" in r for r in rows for tool in tools):
    cpu = lambda r, tool: r[f"{tool} cpu"] * 1000 / r["n"]
    print("each tool's own CPU time, µs a job (perf stat -i: its jobs not counted; "
          f"{CPU_ROUNDS} round{'s' if CPU_ROUNDS != 1 else ''}):")
    print(f"{'shape':<8} {'jobs':>7}  " + "".join(f"{tool:>10}" for tool in tools))
    for r in rows:
        print(f"{r['shape']:<8} {r['n']:7d}  " + "".join(f"{cpu(r, tool):10.1f}" for tool in tools))
    grew = [f"{tool} on {b['shape']}: {cpu(a, tool):.1f} µs a job at {a['n']:,} → {cpu(b, tool):.1f} at {b['n']:,}"
            for a, b in zip(rows, rows[1:]) if a["shape"] == b["shape"]
            for tool in tools if cpu(b, tool) > cpu(a, tool) * 1.3]
    print("own CPU a job that grew by more than 30 % from one size to the next: " + ("none" if not grew else ""))
    for line in grew:
        print("  " + line)
for shape in dict.fromkeys(r["shape"] for r in rows):
    mine = [r for r in rows if r["shape"] == shape]
    if len(mine) < 2:
        continue
    small, large = mine[0], mine[-1]
    verdicts = ", ".join(
        f"{tool} {over(large, tool):.1f} µs at {large['n']:,} vs {over(small, tool):.1f} at {small['n']:,}"
        for tool in ("make", "ninja", "oprun"))
    print(f"{shape}: {verdicts}")
PY
