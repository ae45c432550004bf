#!/usr/bin/env bash
# Deciding that nothing needs doing, over a big tree of inputs (numbers for
# docs/PERFORMANCE.md, "Only what changed"): one job whose inputs are 10,000 files of 100 KB in
# 100 folders (977 MiB) and whose one output is `out`; its command is `touch out` for every tool,
# so that a run that does run the job leaves the output as oprun recorded it (same content) and
# as make wants it (newer).
#  1. nothing changed: oprun, make (every file a prerequisite; with `-r`, since with its built-in
#     rules make searches for a way to remake each of the 10,000 files, which takes it seconds),
#     go-task by checksum (its default) and by timestamp, and a stat floor (`find -newer out`,
#     which stats every file), in one hyperfine run. oprun trusts its hash cache for a file
#     whose size, times and inode are unchanged, so this is its stat cost, start-up and journal.
#  2. one input changed: before each round one file is edited (hyperfine's --prepare), so each
#     tool re-decides and runs the job once: oprun hashes that one file, go-task by checksum
#     every file, make and go-task by timestamp compare times. `oprun -n` first: the decision
#     alone (the walk, one file hashed, the reason), without running the job or recording it.
#     Then that decision's cost over deciding that nothing changed, from PAIRS (100) interleaved
#     pairs of rounds: the goal's number, which two hyperfine blocks measure less well than
#     this VM's drift between them.
#  3. a cold hash cache: `.oprun/hashes*` removed before each round, the journal kept, so oprun
#     reads and hashes all 977 MiB (from the page cache: the tree was just read) and then finds
#     the job up to date; it does not run it. (Removing the whole `.oprun/` would also run the job
#     once, which measures a first run, not hashing.) Beside it, `sha256sum` on 2 processes: the
#     floor of reading and hashing the same bytes.
# The tree is generated once under $WORK (default /tmp/oprun-bench-incremental) and kept for the
# next run of this script: delete it to start over. Needs hyperfine, make and python3 (with
# venv); go-task comes from PyPI (go-task-bin) into .build-tools/go-task, fetched if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
WORK=${WORK:-/tmp/oprun-bench-incremental}
RUNS=${RUNS:-10}
COLD_RUNS=${COLD_RUNS:-5}
PAIRS=${PAIRS:-100}
FOLDERS=100
FILES_PER_FOLDER=100
FILE_BYTES=102400
source Benchmarks/need.sh
need hyperfine hyperfine
need make make

TASK_HOME=$ROOT/.build-tools/go-task
TASK=$TASK_HOME/venv/bin/task
if [ ! -x "$TASK" ]; then
  echo "fetching go-task (go-task-bin from PyPI) into $TASK_HOME"
  rm -rf "$TASK_HOME" && mkdir -p "$TASK_HOME"
  python3 -m venv "$TASK_HOME/venv"
  "$TASK_HOME/venv/bin/pip" install -q go-task-bin
fi

# The tree, its output and the three tools' manifests; `.complete` marks a tree fully written.
if [ ! -f "$WORK/.complete" ]; then
  echo "writing $((FOLDERS * FILES_PER_FOLDER)) files of $FILE_BYTES bytes under $WORK/data"
  rm -rf "$WORK" && mkdir -p "$WORK"
  python3 - "$WORK/data" "$FOLDERS" "$FILES_PER_FOLDER" "$FILE_BYTES" <<'PY'
import os, sys
root, folders, files, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for d in range(folders):
    folder = os.path.join(root, f"d{d:03}")
    os.makedirs(folder)
    for f in range(files):
        with open(os.path.join(folder, f"f{f:03}.dat"), "wb") as out:
            out.write(os.urandom(size))
PY
  touch "$WORK/.complete"
fi
cd "$WORK"
cat >jobs.yaml <<'EOF'
jobs:
  big:
    command: touch out
    inputs: [data/]
    outputs: [out]
EOF
{
  echo 'out: \'
  find data -type f | sort | sed 's/.*/  & \\/'
  printf '\n\ttouch out\n'
} >Makefile
taskfile() {
  printf 'version: "3"\ntasks:\n  default:\n    method: %s\n' "$1"
  printf '    sources: ["data/**/*"]\n    generates: [out]\n    cmds: [touch out]\n'
}
taskfile checksum >Taskfile.yml
taskfile timestamp >Taskfile-timestamp.yml
EDITED=data/d042/f042.dat

# Every tool once with its state in place: each then has nothing to do.
touch out
"$OPRUN" -q jobs.yaml >/dev/null
make -r -s >/dev/null
"$TASK" -s >/dev/null
"$TASK" -s -t Taskfile-timestamp.yml >/dev/null
# A file changed within the last second is read again at each run (the racy-file rule) and
# its new hash saved: `out` was just touched, so oprun settles a second later.
sleep 1.1
"$OPRUN" -q jobs.yaml >/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores ·" \
  "$(du -sh data | cut -f1) in $(find data -type f | wc -l) files"

echo "-- nothing changed"
hyperfine -N --warmup 2 --runs "$RUNS" \
  -n oprun "$OPRUN -q jobs.yaml" \
  -n make "make -r -s" \
  -n "go-task (checksum)" "$TASK -s" \
  -n "go-task (timestamp)" "$TASK -s -t Taskfile-timestamp.yml" \
  -n "find -newer (stat floor)" "find data -type f -newer out" 2>&1 | grep -E "^Benchmark|Time \("

# Each round edits the same file with new bytes of the same size, then the tool re-decides.
# The first row writes the same bytes to a file that is no input instead: a preparation that
# runs a Python process before each round leaves the machine's caches colder than back-to-back
# runs do (6-8 ms more for oprun alone), so the edit's cost is its row minus this one, not
# minus the table above.
edit="python3 -c 'import os; open(\"$EDITED\", \"wb\").write(os.urandom($FILE_BYTES))'"
no_edit="python3 -c 'import os; open(\"not-an-input\", \"wb\").write(os.urandom($FILE_BYTES))'"
echo "-- one input changed (the job runs once per round)"
hyperfine -N --runs "$RUNS" \
  --prepare "$no_edit" -n "oprun -n, nothing changed (same preparation)" "$OPRUN -n jobs.yaml" \
  --prepare "$edit" -n "oprun -n (the decision alone)" "$OPRUN -n jobs.yaml" \
  --prepare "$edit" -n oprun "$OPRUN -q jobs.yaml" \
  --prepare "$edit" -n make "make -r -s" \
  --prepare "$edit" -n "go-task (checksum)" "$TASK -s" \
  --prepare "$edit" -n "go-task (timestamp)" "$TASK -s -t Taskfile-timestamp.yml" 2>&1 |
  grep -E "^Benchmark|Time \("

# The same question measured so that the machine's drift cancels: hyperfine runs one command's
# rounds, then the next's, and on this VM a mean moves 3-6 ms between two blocks of rounds,
# more than the edit costs. Here `oprun -n` after an edit and after a write to a file that is
# no input alternate (which goes first alternating too), each round prepared by the same
# process, and the edit's cost is the mean of the paired differences with its standard error;
# beside it, what hashing the edited file's bytes costs.
echo "-- one input changed, paired with nothing changed (interleaved rounds)"
python3 - "$OPRUN" "$EDITED" "$FILE_BYTES" "$PAIRS" <<'PY'
import hashlib, os, statistics, subprocess, sys, time
oprun, edited, size, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def timed(path):
    with open(path, "wb") as out:
        out.write(os.urandom(size))
    started = time.perf_counter()
    subprocess.run([oprun, "-n", "jobs.yaml"], stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000
edits, others = [], []
for pair in range(pairs):
    for path in ((edited, "not-an-input") if pair % 2 else ("not-an-input", edited)):
        (edits if path == edited else others).append(timed(path))
differences = [e - o for e, o in zip(edits, others)]
error = statistics.stdev(differences) / len(differences) ** 0.5
data = open(edited, "rb").read()
started = time.perf_counter()
for _ in range(100):
    hashlib.sha256(data).digest()
hash_ms = (time.perf_counter() - started) * 10
print(f"oprun -n, nothing changed: {statistics.mean(others):.1f} ms (median {statistics.median(others):.1f})")
print(f"oprun -n, one input edited: {statistics.mean(edits):.1f} ms (median {statistics.median(edits):.1f})")
print(f"the edit's cost: {statistics.mean(differences):+.2f} ms ± {error:.2f} (standard error, {pairs} pairs);"
      f" hashing the edited file's {size} bytes: {hash_ms:.2f} ms")
PY

echo "-- cold hash cache: every input hashed again (the job stays up to date)"
hyperfine -N --warmup 1 --runs "$COLD_RUNS" \
  --prepare "sh -c 'rm -f .oprun/hashes*'" -n "oprun, no hash cache" "$OPRUN -q jobs.yaml" \
  --prepare "true" -n "sha256sum -P 2 (floor)" \
  "sh -c 'find data -type f -print0 | xargs -0 -P 2 -n 500 sha256sum >/dev/null'" \
  2>&1 | grep -E "^Benchmark|Time \("
