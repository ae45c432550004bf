#!/usr/bin/env bash
# Per-job overhead of `oprun -j 2` against ninja, make and the spawn floor (a C loop that only
# posix_spawns `/bin/sh -c true`), on 1,000 trivial jobs shaped flat, chain and layered;
# and oprun's start-up time on a one-job manifest. Needs hyperfine, ninja, cc (installed if missing).
# OPRUN_BASELINE=/path/to/another/oprun adds that binary to the same interleaved rounds (a
# before/after comparison of a change, free of the drift between two separate runs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
N=${N:-1000}
RUNS=${RUNS:-30}
need() { command -v "$1" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; }; }
need hyperfine hyperfine
need ninja ninja-build
need cc gcc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/spawn-floor" Benchmarks/spawn-floor.c

BASELINE=${OPRUN_BASELINE:-}
printf '%-8s %10s %10s %10s %10s   %s\n' shape "floor ms" "oprun ms" "ninja ms" "make ms" "per-job overhead over the floor (us): oprun / ninja / make  (medians of $RUNS interleaved rounds)"
for shape in flat chain layered; do
  python3 Benchmarks/gen-graphs.py "$shape" "$N" "$work"
  # The floor runs as many at once as the graph allows: a chain, one at a time.
  width=2; [ "$shape" = chain ] && width=1
  (cd "$work" && python3 "$ROOT/Benchmarks/interleave.py" "$RUNS" \
    "floor=$work/spawn-floor $N $width" \
    "oprun=$OPRUN -j 2 -q $shape.yaml" \
    "ninja=ninja -j 2 -f $shape.ninja" \
    "make=make -s -j 2 -f $shape.mk" ${BASELINE:+"baseline=$BASELINE -j 2 -q $shape.yaml"} >"$shape.json")
  python3 - "$work/$shape.json" "$shape" "$N" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
shape, n = sys.argv[2], int(sys.argv[3])
floor = results["floor"]
over = lambda k: (results[k] - floor) * 1000 / n
print(f"{shape:<8} {floor:10.1f} {results['oprun']:10.1f} {results['ninja']:10.1f} {results['make']:10.1f}   "
      f"{over('oprun'):.0f} / {over('ninja'):.0f} / {over('make'):.0f}")
if "baseline" in results:
    print(f"{'':<8} baseline {results['baseline']:.1f} ms: oprun takes {results['oprun'] / results['baseline'] * 100 - 100:+.1f} % "
          f"({over('oprun'):.1f} vs {over('baseline'):.1f} us per job over the floor)")
PY
done

printf 'name: one\njobs:\n  only: {command: "true"}\n' >"$work/one.yaml"
(cd "$work" && hyperfine -N --warmup 5 --runs 200 --export-json one.json \
  -n oprun "$OPRUN -q one.yaml" -n "oprun --version" "$OPRUN --version" >/dev/null)
python3 - "$work/one.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"start-up: {r['command']:<16} {r['mean']*1000:.2f} ms ± {r['stddev']*1000:.2f}")
PY
