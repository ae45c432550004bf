#!/usr/bin/env bash
# What measuring and enforcing resources cost per job (SPEC §12): 1,000 trivial jobs (`true`),
# `-j 2 -q --no-journal`, without `resources` (measured by their reaped processes) and with
# `resources: {memory: 1G}` on every job (a cgroup of its own per job, limited, measured,
# removed). hyperfine for each, then both in interleaved rounds with the kernel's own share of
# it, measured with no oprun (see the floor below): medians, each cost as the median of the
# per-round ratios (a ratio within a round cancels the machine's drift), and oprun's own CPU
# under perf where it can count. Needs cgroups oprun may make (root, or a delegated v2
# subtree): without them the second run only warns, and the script says so.
# Usage: Benchmarks/resources.sh   (JOBS=1000 RUNS=5 ROUNDS=40 CPU_ROUNDS=5; OPRUN=path/to/oprun)
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
[ -x "$OPRUN" ] || make build
OPRUN=$(realpath "$OPRUN")
JOBS=${JOBS:-1000}
source Benchmarks/need.sh
need hyperfine hyperfine
scratch_folder
interleave=$PWD/Benchmarks/interleave.py
join_source=$PWD/Benchmarks/cgroup-join.c
cd "$work"

python3 - "$JOBS" <<'PY'
import sys
jobs = int(sys.argv[1])
body = "".join(f"  j{index}: {{command: 'true'}}\n" for index in range(jobs))
open("plain.yaml", "w").write("jobs:\n" + body)
open("limited.yaml", "w").write("defaults:\n  resources: {memory: 1G}\njobs:\n" + body)
PY

if "$OPRUN" -j 2 -q --no-journal limited.yaml 2>&1 | grep -q 'not enforced'; then
  echo "resources.sh: no cgroup can be made here; the second run measures scheduling alone" >&2
fi

echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · load $(cut -d' ' -f1-3 /proc/loadavg) · $JOBS jobs, -j 2"
hyperfine -N --warmup 1 --runs "${RUNS:-5}" --export-json hyperfine.json \
  -n 'no resources' "$OPRUN -j 2 -q --no-journal plain.yaml" \
  -n 'memory: 1G (a cgroup per job)' "$OPRUN -j 2 -q --no-journal limited.yaml"
# The kernel's own share, with no oprun at all, in the same rounds: Benchmarks/cgroup-join.c
# runs the same number of `true`, two at a time, each vforked child joining before it execs
# what oprun's would, in two slots taken in turn: nothing, or the memory cgroup (on v1 a job's
# cgroup is in the memory hierarchy alone). Needs cgroup v1 as root: elsewhere only oprun is
# measured. mountinfo: the file system's type is the field after the lone "-".
memory_mount=$(awk '{
  for (i = 7; i < NF; i++) if ($i == "-") break
  if ($(i + 1) == "cgroup" && $NF ~ /(^|,)memory(,|$)/) { print $5; exit }
}' /proc/self/mountinfo)
memory_own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
floor=()
if [ "$(id -u)" = 0 ] && [ -n "$memory_mount" ]; then
  cc -O2 -o join "$join_source"
  memory=$memory_mount${memory_own%/}/oprun-floor-$$
  mkdir -p "$memory"/slot0 "$memory"/slot1
  trap 'rmdir "$memory"/slot* "$memory" 2>/dev/null; rm -rf "$work"' EXIT
  floor=("floor=./join -s 2 $JOBS" "floor-memory=./join -s 2 $JOBS $memory/slot0/tasks $memory/slot1/tasks")
else
  echo "floor: needs root and cgroup v1's memory hierarchy; not measured here"
fi
python3 "$interleave" --warmup 1 --cpu-rounds "${CPU_ROUNDS:-5}" --against plain --against floor "${ROUNDS:-40}" \
  "plain=$OPRUN -j 2 -q --no-journal plain.yaml" \
  "limited=$OPRUN -j 2 -q --no-journal limited.yaml" "${floor[@]}" > interleaved.json

python3 - "$JOBS" <<'PY'
import json, sys
jobs = int(sys.argv[1])
runs = {r["command"]: r for r in json.load(open("hyperfine.json"))["results"]}
plain, limited = runs["no resources"]["mean"], runs["memory: 1G (a cgroup per job)"]["mean"]
print(f"hyperfine means: {plain * 1e6 / jobs:.0f} µs/job without, {limited * 1e6 / jobs:.0f} µs/job with:"
      f" +{(limited - plain) * 1e6 / jobs:.0f} µs/job, {100 * (limited / plain - 1):+.1f} %")
medians = json.load(open("interleaved.json"))
plain, limited = medians["plain"], medians["limited"]
print(f"interleaved: {plain * 1e3 / jobs:.0f} µs/job without, {limited * 1e3 / jobs:.0f} µs/job with (medians);"
      f" cost {100 * (medians['limited/plain'] - 1):+.1f} % (median of the rounds' ratios)")
if "plain cpu" in medians and "limited cpu" in medians:
    plain, limited = medians["plain cpu"], medians["limited cpu"]
    print(f"oprun's own CPU (perf, median): {plain * 1e3 / jobs:.0f} µs/job without, {limited * 1e3 / jobs:.0f} with:"
          f" +{(limited - plain) * 1e3 / jobs:.0f} µs/job, {100 * (limited / plain - 1):+.1f} %")
if "floor" in medians:
    none, joined = medians["floor"], medians["floor-memory"]
    print(f"floor, no oprun, same rounds: {none * 1e3 / jobs:.0f} µs/job joining nothing,"
          f" {joined * 1e3 / jobs:.0f} joining the memory cgroup:"
          f" {100 * (medians['floor-memory/floor'] - 1):+.1f} % (median of the rounds' ratios)")
PY
