#!/usr/bin/env bash
# Parsing and checking: time and peak memory of `oprun check` on generated manifests of
# 1,000, 10,000 and 100,000 jobs, each job depending on two earlier ones.
# Usage: Benchmarks/parse.sh [JOB-COUNT...]   (OPRUN=path/to/oprun to measure another build)
# Budget: 100,000 jobs in under a second; BENCH_STRICT=1 makes going over it an error.
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(1000 10000 100000)
BUDGET_SECONDS=1.0

[ -x "$OPRUN" ] || make build

# GNU time gives the peak RSS; hyperfine the timing. Install them if we may.
missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v hyperfine >/dev/null || missing+=(hyperfine)
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; } || true
fi
[ -x /usr/bin/time ] || { echo "parse.sh: /usr/bin/time (package 'time') is needed" >&2; exit 1; }

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

# Job i depends on two distinct earlier jobs, picked by a fixed-seed generator.
generate() {
  awk -v count="$1" 'BEGIN {
    srand(42)
    print "name: bench"
    print "max-concurrent: 8"
    print "jobs:"
    for (i = 0; i < count; i++) {
      printf "  job%d:\n    command: echo building part %d of the benchmark graph\n", i, i
      if (i >= 2) {
        a = int(rand() * i); b = int(rand() * (i - 1)); if (b >= a) b++
        printf "    dependencies: [job%d, job%d]\n", a, b
      }
      if (i % 10 == 0) print "    priority: high"
    }
  }'
}

# Mean and minimum wall time in seconds, as "MEAN MIN".
measure_time() {
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 2 --runs 10 --export-json "$workdir/timing.json" "$OPRUN check $1" >/dev/null 2>&1
    awk -F'[:,]' '/"mean"/ { mean = $2 } /"min"/ { min = $2 } END { printf "%.3f %.3f\n", mean, min }' "$workdir/timing.json"
  else
    for _ in 1 2 3 4 5; do /usr/bin/time -f %e -a -o "$workdir/times" "$OPRUN" check "$1" >/dev/null; done
    sort -n "$workdir/times" | awk '{ sum += $1; if (NR == 1) min = $1 } END { printf "%.3f %.3f\n", sum / NR, min }'
    rm -f "$workdir/times"
  fi
}

measure_peak_rss_mb() {
  /usr/bin/time -f %M -o "$workdir/rss" "$OPRUN" check "$1" >/dev/null
  awk '{ printf "%.1f", $1 / 1024 }' "$workdir/rss"
}

timer=$(command -v hyperfine >/dev/null && echo "hyperfine -N, 10 runs" || echo "/usr/bin/time, 5 runs")
echo "oprun check on generated manifests ($timer; peak RSS from /usr/bin/time -f %M)"
printf "%8s %9s %10s %10s %12s %14s\n" jobs "size MB" "mean s" "min s" "peak RSS MB" "µs per job"
over_budget=0
for count in "${COUNTS[@]}"; do
  manifest="$workdir/jobs-$count.yaml"
  generate "$count" >"$manifest"
  "$OPRUN" check "$manifest" >/dev/null
  size=$(awk -v bytes="$(wc -c <"$manifest")" 'BEGIN { printf "%.1f", bytes / 1048576 }')
  read -r mean min < <(measure_time "$manifest")
  rss=$(measure_peak_rss_mb "$manifest")
  per_job=$(awk -v t="$mean" -v n="$count" 'BEGIN { printf "%.2f", t * 1e6 / n }')
  printf "%8d %9s %10s %10s %12s %14s\n" "$count" "$size" "$mean" "$min" "$rss" "$per_job"
  if [ "$count" -ge 100000 ] && awk -v t="$mean" -v b="$BUDGET_SECONDS" 'BEGIN { exit !(t >= b) }'; then
    over_budget=1
  fi
done
if [ "$over_budget" = 1 ]; then
  echo "over budget: 100,000 jobs took ${BUDGET_SECONDS} s or more" >&2
  [ "${BENCH_STRICT:-0}" = 1 ] && exit 1
fi
exit 0
