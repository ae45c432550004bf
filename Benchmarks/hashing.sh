#!/usr/bin/env bash
# Snapshot throughput of the inputs/outputs hashing: 10,000 files of 100 KB in 100 folders
# (977 MB, in the page cache) under /tmp. Prints the cold snapshot (no hash cache) in GB/s, the
# warm one (every file vouched for by the cache: one stat each) in ms, and the cache's save and
# load times. Release build with testing enabled, as the benchmark is an opt-in test.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
OPRUN_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter FileHashingBenchmark 2>&1 \
  | grep -E '^(cold|warm|cache):|✘|error'
