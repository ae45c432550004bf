#!/usr/bin/env bash
# The journal's cost and --resume at scale (docs/PERFORMANCE.md, "The journal and --resume"):
#  1. `oprun -j 2 -q` with and without --no-journal on 1,000 trivial jobs shaped flat, chain
#     and layered, both commands in one hyperfine run (each run also prunes to 20 journals);
#  2. `oprun -r` of a 100,000-job run that all succeeded: one full run first, then the resume,
#     with -q and with every line printed (to /dev/null).
# Needs hyperfine (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
N=${N:-1000}
RUNS=${RUNS:-40}
BIG=${BIG:-100000}
command -v hyperfine >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for shape in flat chain layered; do
  python3 "$ROOT/Benchmarks/gen-graphs.py" "$shape" "$N" "$work"
  hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$shape.json" \
    -n journal "$OPRUN -j 2 -q $shape.yaml" -n no-journal "$OPRUN -j 2 -q --no-journal $shape.yaml" >/dev/null
  python3 - "$shape.json" "$shape" "$N" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
shape, n = sys.argv[2], int(sys.argv[3])
on, off = results["journal"], results["no-journal"]
cost = (on["median"] - off["median"]) / off["median"] * 100
print(f"{shape:<8} {n} jobs  journal {on['median']*1000:7.1f} ms ±{on['stddev']*1000:4.1f}   "
      f"--no-journal {off['median']*1000:7.1f} ms ±{off['stddev']*1000:4.1f}   cost {cost:+.1f} %")
PY
  # hyperfine runs one command's rounds after the other's, so a drift of the machine lands on
  # one of them; interleaved rounds give the steadier figure.
  python3 "$ROOT/Benchmarks/interleave.py" "$RUNS" "journal=$OPRUN -j 2 -q $shape.yaml" \
    "nojournal=$OPRUN -j 2 -q --no-journal $shape.yaml" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(f"         interleaved medians: journal {r[\"journal\"]:.1f} ms, --no-journal {r[\"nojournal\"]:.1f} ms, "
      f"cost {(r[\"journal\"] - r[\"nojournal\"]) / r[\"nojournal\"] * 100:+.1f} %")'
done

mkdir big && cd big
python3 "$ROOT/Benchmarks/gen-graphs.py" layered "$BIG" .
echo "running $BIG jobs once to have a journal to resume from"
"$OPRUN" -q layered.yaml >/dev/null
ls -l .oprun/runs | awk 'NR > 1 { printf "journal of %s jobs: %.1f MB\n", "'"$BIG"'", $5 / 1e6 }'
hyperfine -N --warmup 1 --runs 10 \
  -n "resume -q" "$OPRUN -q -r layered.yaml" \
  -n "resume, every line" "$OPRUN -r --output prefixed layered.yaml" \
  -n "check" "$OPRUN check layered.yaml" 2>&1 | grep -E "^Benchmark|Time \(mean"
