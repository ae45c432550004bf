#!/usr/bin/env bash
# `oprun graph` on a layered manifest of 10,000 jobs (100 layers of 100, each job depending on
# 3 jobs of the layer before, every other job on a second queue): DOT and mermaid, without and
# with `--run` on the events of a real run of it, against `oprun check` (loading alone).
# Usage: Benchmarks/graph.sh   (OPRUN=path/to/oprun to measure another build)
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
[ -x "$OPRUN" ] || make build
command -v hyperfine >/dev/null || { echo "graph.sh: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

awk 'BEGIN {
  print "name: layered"
  print "max-concurrent: 8"
  print "queues:"
  print "  side: {max-concurrent: 4, qos: utility}"
  print "jobs:"
  for (job = 0; job < 10000; job++) {
    layer = int(job / 100); index_ = job % 100
    line = "  j" job ": {command: '\''true'\''"
    if (layer > 0) {
      base = (layer - 1) * 100
      line = line ", dependencies: [j" (base + index_) ", j" (base + (index_ + 1) % 100) ", j" (base + (index_ + 7) % 100) "]"
    }
    if (job % 2) line = line ", queue: side"
    if (job % 50 == 49) line = line ", run-if: always"
    print line "}"
  }
}' >"$workdir/layered.yaml"

"$OPRUN" "$workdir/layered.yaml" --events "$workdir/events.ndjson" -q --no-journal >/dev/null
cd "$workdir"
hyperfine -N --warmup 3 --runs 20 \
  "$OPRUN check layered.yaml" \
  "$OPRUN graph layered.yaml" \
  "$OPRUN graph layered.yaml --format mermaid" \
  "$OPRUN graph layered.yaml --run events.ndjson" \
  "$OPRUN graph layered.yaml --format mermaid --run events.ndjson"
