#!/usr/bin/env bash
# Per-job time of `oprun -j 2` against make, ninja and two spawn floors (a C loop that only
# posix_spawns /bin/true itself, or `/bin/sh -c true`), on N trivial jobs shaped flat, chain and
# layered, oprun and make both ways (directly, and forced through the shell);
# and oprun's start-up time on a one-job manifest. Needs hyperfine, ninja, cc (installed if missing).
# OPRUN_BASELINE=/path/to/another/oprun adds that binary to the same interleaved rounds (a
# before/after comparison of a change, free of the drift between two separate runs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
N=${N:-1000}
RUNS=${RUNS:-30}
source Benchmarks/need.sh
need hyperfine hyperfine
need ninja ninja-build
need cc gcc

scratch_folder
cc -O2 -o "$work/spawn-floor" Benchmarks/spawn-floor.c
# Copies, as `make install` makes: the file the linker wrote starts up to 0.5 ms slower than a
# copy of it (PERFORMANCE.md, start-up). Each with the helper programs built beside it, in a
# folder of its own: an oprun without its watchdog program runs itself as its watchdog, 1.5 ms
# more a run.
copy_oprun() {
  mkdir -p "$work/$2" && cp "$1" "$work/$2/oprun"
  for helper in oprun-watchdog oprun-http; do
    if [ -x "$(dirname "$1")/$helper" ]; then cp "$(dirname "$1")/$helper" "$work/$2/"; fi
  done
}
copy_oprun "$OPRUN" current && OPRUN=$work/current/oprun

BASELINE=${OPRUN_BASELINE:-}
if [ -n "$BASELINE" ]; then copy_oprun "$BASELINE" baseline && BASELINE=$work/baseline/oprun; fi
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') · N=$N, medians of $RUNS interleaved rounds"
printf '%-8s %8s %8s %8s %8s %8s %8s %8s   %s\n' shape "direct" "sh" "oprun" "make" "ninja" "oprun-sh" "make-sh" \
  "ms; then each tool's time over the direct floor: oprun / make / ninja"
for shape in flat chain layered; do
  python3 Benchmarks/gen-graphs.py "$shape" "$N" "$work"
  # The floors run as many at once as the graph allows: a chain, one at a time. `direct` spawns
  # /bin/true itself; `sh` spawns /bin/sh -c true.
  width=2; [ "$shape" = chain ] && width=1
  (cd "$work" && python3 "$ROOT/Benchmarks/interleave.py" "$RUNS" \
    "direct=$work/spawn-floor $N $width /bin/true direct" \
    "sh=$work/spawn-floor $N $width" \
    "oprun=$OPRUN -j 2 -q $shape.yaml" \
    "make=make -s -j 2 -f $shape.mk" \
    "ninja=ninja -j 2 -f $shape.ninja" \
    "oprun-sh=$OPRUN -j 2 -q $shape-sh.yaml" \
    "make-sh=make -s -j 2 -f $shape-sh.mk" ${BASELINE:+"baseline=$BASELINE -j 2 -q $shape.yaml"} >"$shape.json")
  python3 - "$work/$shape.json" "$shape" "$N" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
shape, n = sys.argv[2], int(sys.argv[3])
ratio = lambda k: r[k] / r["direct"]
print(f"{shape:<8} " + " ".join(f"{r[k]:8.1f}" for k in ("direct", "sh", "oprun", "make", "ninja", "oprun-sh", "make-sh"))
      + f"   {ratio('oprun'):.3f} / {ratio('make'):.3f} / {ratio('ninja'):.3f} x")
if "baseline" in r:
    print(f"{'':<8} baseline {r['baseline']:.1f} ms: oprun takes {r['oprun'] / r['baseline'] * 100 - 100:+.1f} %")
PY
done

# Start-up: one job that runs `true`, each tool in the same hyperfine run, in a folder of its
# own: not among the state the graphs above left (their journals, ninja's log of 3,000 builds).
mkdir "$work/one"
printf 'name: one\njobs:\n  only: {command: "true"}\n' >"$work/one/one.yaml"
printf 'rule r\n  command = true\nbuild only: r\n' >"$work/one/one.ninja"
printf '.PHONY: only\nonly:\n\t@true\n' >"$work/one/one.mk"
(cd "$work/one" && hyperfine -N --warmup 20 --runs 200 --export-json one.json \
  -n oprun "$OPRUN -q one.yaml" -n "oprun --no-journal" "$OPRUN -q --no-journal one.yaml" \
  -n ninja "ninja -f one.ninja" -n make "make -s -f one.mk" \
  -n "floor" "$work/spawn-floor 1 1 /bin/true direct" \
  -n "oprun --version" "$OPRUN --version" -n "ninja --version" "ninja --version" >/dev/null)
python3 - "$work/one/one.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
for r in results:
    print(f"start-up: {r['command']:<19} {r['mean']*1000:.2f} ms ± {r['stddev']*1000:.2f} (median {r['median']*1000:.2f})")
mean = {r["command"]: r["mean"] * 1000 for r in results}
median = {r["command"]: r["median"] * 1000 for r in results}
print(f"start-up: oprun / ninja        {mean['oprun'] / mean['ninja']:.2f} x ({mean['oprun'] - mean['ninja']:+.2f} ms; "
      f"medians {median['oprun'] - median['ninja']:+.2f} ms; goal: no slower than ninja, at most + 1 ms)")
PY
