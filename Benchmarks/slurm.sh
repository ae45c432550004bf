#!/usr/bin/env bash
# oprun --backend slurm against a plain sbatch loop on the same cluster (`make bench-slurm`
# brings a single-node one up on localhost): a chain of 20 jobs (each afterok the one before)
# and 50 independent jobs, every job `true`. Each is timed from the first submission until no job
# of it is pending or running any more; the sbatch loop's wait polls squeue every 0.1 s, oprun
# polls every 0.25 s. Prints the median of RUNS (default 5) runs of each, in seconds.
# Then a matrix job of 1,000 `true` instances, which oprun submits as one job array, against one
# plain `sbatch --array=0-999` and against 1,000 `sbatch` calls: the median of MATRIX_RUNS
# (default 3) runs of each, the three taking turns.
set -euo pipefail
cd "$(dirname "$0")/.."
oprun=${OPRUN_BINARY:-$PWD/.build/release/oprun}
runs=${RUNS:-5}
work=$(mktemp -d /tmp/oprun-bench-slurm.XXXXXX)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }

{
  echo "jobs:"
  echo "  j1: {command: 'true'}"
  for i in $(seq 2 20); do echo "  j$i: {command: 'true', dependencies: [j$((i - 1))]}"; done
} >"$work/chain.yaml"
{
  echo "jobs:"
  for i in $(seq 1 50); do echo "  j$i: {command: 'true'}"; done
} >"$work/flat.yaml"
{
  echo "jobs:"
  echo "  t:"
  echo "    matrix: {n: [$(seq -s, 0 999)]}"
  echo "    command: 'true'"
} >"$work/matrix.yaml"

# Waits until none of the ids given is pending, running or completing.
await_ids() {
  local list
  list=$(IFS=,; echo "$*")
  while [ -n "$(squeue --noheader --states=PD,R,CG,CF -j "$list" -o %i 2>/dev/null)" ]; do sleep 0.1; done
}

sbatch_chain() {
  local previous="" ids=() id
  for _ in $(seq 1 20); do
    id=$(sbatch --parsable --output=/dev/null ${previous:+--dependency=afterok:$previous} --wrap true)
    ids+=("$id")
    previous=$id
  done
  await_ids "${ids[@]}"
}

sbatch_flat() {
  local ids=()
  for _ in $(seq 1 50); do ids+=("$(sbatch --parsable --output=/dev/null --wrap true)"); done
  await_ids "${ids[@]}"
}

sbatch_array() {
  await_ids "$(sbatch --parsable --output=/dev/null --array=0-999 --wrap true)"
}

sbatch_thousand() {
  local ids=()
  for _ in $(seq 1 1000); do ids+=("$(sbatch --parsable --output=/dev/null --wrap true)"); done
  await_ids "${ids[@]}"
}

oprun_run() { (cd "$work" && "$oprun" --backend slurm -q --no-journal "$1" >/dev/null); }

# time_of COMMAND...: seconds it took.
time_of() {
  local start end
  start=$(now)
  "$@"
  end=$(now)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

measure() { # measure NAME COMMAND...
  local name=$1 times=()
  shift
  for _ in $(seq 1 "$runs"); do times+=("$(time_of "$@")"); done
  printf '%s\n' "${times[@]}" | median
}

echo "Slurm $(sinfo --version | awk '{print $2}'), $(sinfo -h -o '%c') CPUs declared, $(nproc) cores; $(date -u +%Y-%m-%d)"
echo "| graph | sbatch loop | oprun --backend slurm | oprun / loop |"
echo "| --- | ---: | ---: | ---: |"
for graph in chain flat; do
  loop=$(measure "sbatch $graph" "sbatch_$graph")
  ours=$(measure "oprun $graph" oprun_run "$work/$graph.yaml")
  label=$([ "$graph" = chain ] && echo "20-link chain" || echo "50 independent jobs")
  printf '| %s | %s s | %s s | %.2f |\n' "$label" "$loop" "$ours" "$(awk -v a="$ours" -v b="$loop" 'BEGIN { print a / b }')"
done

echo
echo "| 1,000-instance matrix | one sbatch --array | oprun --backend slurm | 1,000 sbatch calls | oprun / array | oprun / calls |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
array_times=() oprun_times=() calls_times=()
for _ in $(seq 1 "${MATRIX_RUNS:-3}"); do
  array_times+=("$(time_of sbatch_array)")
  oprun_times+=("$(time_of oprun_run "$work/matrix.yaml")")
  calls_times+=("$(time_of sbatch_thousand)")
done
array=$(printf '%s\n' "${array_times[@]}" | median)
ours=$(printf '%s\n' "${oprun_times[@]}" | median)
calls=$(printf '%s\n' "${calls_times[@]}" | median)
printf '| `true` × 1,000 | %s s | %s s | %s s | %.2f | %.2f |\n' "$array" "$ours" "$calls" \
  "$(awk -v a="$ours" -v b="$array" 'BEGIN { print a / b }')" "$(awk -v a="$ours" -v b="$calls" 'BEGIN { print a / b }')"
echo "each run (s): array ${array_times[*]}; oprun ${oprun_times[*]}; calls ${calls_times[*]}"
