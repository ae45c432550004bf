#!/usr/bin/env bash
# `make bench`: every benchmark, each printing the numbers docs/PERFORMANCE.md records.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== parsing and checking (oprun check)"
Benchmarks/parse.sh
echo "== queue engine (instant fake executor)"
.build/release/oprun-bench
echo "== running processes (oprun -j 2 vs ninja, make, the spawn floor)"
Benchmarks/runtime.sh
echo "== the cost of a job at each of SIZES (default 1,000, 10,000, 100,000): floor, make, ninja, oprun; growth named"
Benchmarks/scaling.sh
echo "== makespans: a sleepy graph at -j 8, and FIFO against --schedule critical-path"
Benchmarks/schedule.sh
echo "== the report page of a 10,000-job run in headless Chromium"
Benchmarks/report.sh
echo "== the journal's cost, and --resume of 100,000 jobs"
Benchmarks/journal.sh
echo "== only what changed: a no-op re-run over 10,000 input files against make, go-task and a stat floor"
Benchmarks/incremental.sh
echo "== --watch: CPU while waiting over 10,000 files, a write to the job's executing event"
Benchmarks/watch.sh
echo "== secrets: 100 MB of job output with 10 secrets against none"
Benchmarks/secrets.sh
echo "== memory: peak RSS of check and of a run at 10,000 and 100,000 jobs"
Benchmarks/memory.sh
echo "== resources: 1,000 trivial jobs with a cgroup each (memory: 1G) against none"
Benchmarks/resources.sh
