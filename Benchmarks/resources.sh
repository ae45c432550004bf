#!/usr/bin/env bash
# What measuring and enforcing resources cost per job (SPEC §12): 1,000 trivial jobs (`true`),
# `-j 2 -q --no-journal`, without `resources` (measured by their reaped processes) and with
# `resources: {memory: 1G}` on every job (a cgroup of its own per job, limited, measured,
# removed). hyperfine for each, then both in interleaved rounds (medians, and oprun's own CPU
# under perf where it can count). Needs cgroups oprun may make (root, or a delegated v2
# subtree): without them the second run only warns, and the script says so.
# Then the kernel's own share of it, with no oprun (see the end).
# Usage: Benchmarks/resources.sh   (JOBS=1000 RUNS=5 ROUNDS=20 FLOOR_ROUNDS=30; OPRUN=path/to/oprun)
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
[ -x "$OPRUN" ] || swift build -c release --static-swift-stdlib --product oprun
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
python3 "$interleave" --warmup 1 --cpu-rounds "${CPU_ROUNDS:-5}" "${ROUNDS:-20}" \
  "plain=$OPRUN -j 2 -q --no-journal plain.yaml" \
  "limited=$OPRUN -j 2 -q --no-journal limited.yaml" > interleaved.json

python3 - "$JOBS" <<'PY'
import json, sys
jobs = int(sys.argv[1])
runs = {r["command"]: r for r in json.load(open("hyperfine.json"))["results"]}
plain, limited = runs["no resources"]["mean"], runs["memory: 1G (a cgroup per job)"]["mean"]
print(f"hyperfine means: {plain * 1e6 / jobs:.0f} µs/job without, {limited * 1e6 / jobs:.0f} µs/job with:"
      f" +{(limited - plain) * 1e6 / jobs:.0f} µs/job, {100 * (limited / plain - 1):+.1f} %")
medians = json.load(open("interleaved.json"))
plain, limited = medians["plain"], medians["limited"]
print(f"interleaved medians: {plain * 1e3 / jobs:.0f} µs/job without, {limited * 1e3 / jobs:.0f} µs/job with:"
      f" +{(limited - plain) * 1e3 / jobs:.0f} µs/job, {100 * (limited / plain - 1):+.1f} %")
if "plain cpu" in medians and "limited cpu" in medians:
    plain, limited = medians["plain cpu"], medians["limited cpu"]
    print(f"oprun's own CPU (perf, median): {plain * 1e3 / jobs:.0f} µs/job without, {limited * 1e3 / jobs:.0f} with:"
          f" +{(limited - plain) * 1e3 / jobs:.0f} µs/job, {100 * (limited / plain - 1):+.1f} %")
PY

# The kernel's own share, with no oprun at all: Benchmarks/cgroup-join.c runs the same number
# of `true`, two at a time, each vforked child joining before it execs what oprun's would, in
# two slots taken in turn: nothing; the memory cgroup; the memory and (v1, mounted apart) the
# cpuacct cgroup. Needs cgroup v1 as root: elsewhere it says so and stops.
# mountinfo: the file system's type is the field after the lone "-".
v1_mount() {
  awk -v want="$1" -v unwanted="${2:-}" '{
    for (i = 7; i < NF; i++) if ($i == "-") break
    if ($(i + 1) != "cgroup" || $NF !~ "(^|,)" want "(,|$)") next
    if (unwanted != "" && $NF ~ "(^|,)" unwanted "(,|$)") next
    print $5; exit
  }' /proc/self/mountinfo
}
memory_mount=$(v1_mount memory)
cpuacct_mount=$(v1_mount cpuacct memory)
memory_own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
cpuacct_own=$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ { print $3; exit }' /proc/self/cgroup)
if [ "$(id -u)" != 0 ] || [ -z "$memory_mount" ] || [ -z "$cpuacct_mount" ]; then
  echo "floor: needs root and cgroup v1's memory and cpuacct hierarchies mounted apart; not measured here"
  exit 0
fi
cc -O2 -o join "$join_source"
memory=$memory_mount${memory_own%/}/oprun-floor-$$
cpuacct=$cpuacct_mount${cpuacct_own%/}/oprun-floor-$$
mkdir -p "$memory"/slot0 "$memory"/slot1 "$cpuacct"/slot0 "$cpuacct"/slot1
trap 'rmdir "$memory"/slot* "$cpuacct"/slot* "$memory" "$cpuacct" 2>/dev/null; rm -rf "$work"' EXIT
python3 "$interleave" --warmup 1 "${FLOOR_ROUNDS:-30}" \
  "none=./join -s 2 $JOBS" \
  "memory=./join -s 2 $JOBS $memory/slot0/tasks $memory/slot1/tasks" \
  "memory+cpuacct=./join -s 2 $JOBS $memory/slot0/tasks $cpuacct/slot0/tasks $memory/slot1/tasks $cpuacct/slot1/tasks" \
  > floor.json
python3 - "$JOBS" <<'PY'
import json, sys
jobs = int(sys.argv[1])
medians = json.load(open("floor.json"))
none = medians["none"]
for name in ("memory", "memory+cpuacct"):
    print(f"floor, no oprun: {none * 1e3 / jobs:.0f} µs/job joining nothing, {medians[name] * 1e3 / jobs:.0f} joining {name}:"
          f" +{(medians[name] - none) * 1e3 / jobs:.0f} µs/job, {100 * (medians[name] / none - 1):+.1f} %")
PY
