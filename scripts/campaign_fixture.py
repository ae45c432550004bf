"""The folder both state campaigns (scripts/kill-campaign.py, scripts/concurrent-campaign.py) run
oprun in: a manifest of jobs with inputs and outputs (a matrix, chains, a job with two commands,
a folder input, a large file copied in pieces, an early cutoff, a job that fails on a flag),
each job a deterministic function of its inputs that writes its outputs slowly, in several
steps, so that a kill can land mid-write; and what the campaigns ask of it: random changes to
the inputs, `oprun -n` read back, and whether a job said to be up to date really is.

Every job runs `sh job.sh write OUTPUT...`; `sh job.sh expect OUTPUT` prints what OUTPUT must
hold given the inputs as they are now, and fails when the job would fail: one definition of
each job, used by the run and by the check.
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
import uuid

# name -> (dependencies, inputs, outputs): the one table the manifest and the check are made
# from. Each command writes the outputs it names; the matrix `gen` is written out by instance.
JOBS = {f"gen[{i}]": ([], [f"in/{i}.txt"], [f"out/gen-{i}.txt"]) for i in range(1, 5)}
JOBS.update(
    {
        "merge": (["gen"], ["out/gen-*.txt"], ["out/merge.txt"]),
        "chain1": (["merge"], ["out/merge.txt", "in/extra.txt"], ["out/chain1.txt"]),
        "chain2": (["chain1"], ["out/chain1.txt"], ["out/chain2.txt", "out/chain2.len"]),
        "folder": ([], ["in/dir/"], ["out/folder.txt"]),
        "blob": ([], ["in/blob.bin"], ["out/blob.copy"]),
        "cutoff": ([], ["in/x.txt"], ["out/x.first"]),
        "after": (["cutoff"], ["out/x.first"], ["out/after.txt"]),
        "flaky": ([], ["in/flag.txt"], ["out/flaky.txt"]),
        "report": (["flaky", "chain2", "folder"], ["out/flaky.txt", "out/chain2.txt", "out/folder.txt"], ["out/report.txt"]),
    }
)

JOB_SCRIPT = r"""#!/bin/sh
# sh job.sh write OUTPUT...   writes each OUTPUT from the job's inputs, in three pieces with
#                             pauses between them; fails afterwards when the job fails
# sh job.sh expect OUTPUT     prints what OUTPUT must hold now; fails when the job would fail
set -eu
export LC_ALL=C
content() {
  case $1 in
    out/gen-*.txt) i=${1#out/gen-}; i=${i%.txt}; sha256sum < "in/$i.txt"; tac "in/$i.txt" ;;
    out/merge.txt) for f in out/gen-*.txt; do printf '%s ' "$f"; sha256sum < "$f"; done ;;
    out/chain1.txt) cat out/merge.txt in/extra.txt | sha256sum; wc -c < in/extra.txt ;;
    out/chain2.txt) sha256sum < out/chain1.txt ;;
    out/chain2.len) wc -c < out/chain1.txt ;;
    out/folder.txt) for f in in/dir/*; do [ -e "$f" ] || continue; printf '%s ' "$f"; sha256sum < "$f"; done ;;
    out/blob.copy) cat in/blob.bin ;;
    out/x.first) head -n 1 in/x.txt ;;
    out/after.txt) sha256sum < out/x.first ;;
    out/flaky.txt) sha256sum < in/flag.txt ;;
    out/report.txt) cat out/flaky.txt out/chain2.txt out/folder.txt | sha256sum ;;
    *) echo "job.sh: no output $1" >&2; exit 2 ;;
  esac
}
fails() { [ "$1" = out/flaky.txt ] && grep -q fail in/flag.txt; }
mode=$1; shift
case $mode in
  expect) content "$1"; ! fails "$1" ;;
  write)
    mkdir -p out
    failed=
    for output in "$@"; do
      whole=$(mktemp)
      content "$output" > "$whole"
      size=$(wc -c < "$whole")
      third=$((size / 3 + 1))
      head -c "$third" "$whole" > "$output"
      sleep 0.05
      tail -c +"$((third + 1))" "$whole" | head -c "$third" >> "$output"
      sleep 0.05
      tail -c +"$((2 * third + 1))" "$whole" >> "$output"
      rm -f "$whole"
      if fails "$output"; then failed=yes; fi
    done
    [ -z "$failed" ]
    ;;
esac
"""


def manifest(token):
    """The manifest's text; every process of its runs carries `token` in its environment."""
    lines = ["name: state-campaign", f"env: {{CAMPAIGN_TOKEN: {token}}}", "jobs:"]
    lines += [
        "  gen:",
        "    matrix: {i: [1, 2, 3, 4]}",
        "    command: sh job.sh write out/gen-${{ matrix.i }}.txt",
        '    inputs: ["in/${{ matrix.i }}.txt"]',
        '    outputs: ["out/gen-${{ matrix.i }}.txt"]',
    ]
    for name, (dependencies, inputs, outputs) in JOBS.items():
        if name.startswith("gen["):
            continue
        lines.append(f"  {name}:")
        if name == "chain2":  # two commands: a kill between them leaves one output written
            lines.append("    commands: [" + ", ".join(f'"sh job.sh write {o}"' for o in outputs) + "]")
        else:
            lines.append("    command: sh job.sh write " + " ".join(outputs))
        if dependencies:
            lines.append(f"    dependencies: [{', '.join(dependencies)}]")
        lines.append("    inputs: [" + ", ".join(f'"{i}"' for i in inputs) + "]")
        lines.append("    outputs: [" + ", ".join(f'"{o}"' for o in outputs) + "]")
    return "\n".join(lines) + "\n"


def words(rng, count):
    return "".join(f"{rng.choice(['alpha', 'beta', 'gamma', 'delta', 'omega'])}{rng.randrange(100)}\n" for _ in range(count))


class Fixture:
    """A folder with the manifest, job.sh and the inputs, all made from `rng`."""

    def __init__(self, oprun, rng, parent=None):
        self.oprun = oprun
        self.rng = rng
        self.token = str(uuid.uuid4())
        self.folder = tempfile.mkdtemp(prefix="oprun-campaign-", dir=parent)
        self.manifest = os.path.join(self.folder, "jobs.yaml")
        self.write("jobs.yaml", manifest(self.token))
        self.write("job.sh", JOB_SCRIPT)
        for i in range(1, 5):
            self.write(f"in/{i}.txt", words(rng, 3 + rng.randrange(5)))
        self.write("in/extra.txt", words(rng, 2))
        self.write("in/x.txt", words(rng, 3))
        self.write("in/flag.txt", "ok\n")
        for name in "abc":
            self.write(f"in/dir/{name}.txt", words(rng, 2))
        self.write_bytes("in/blob.bin", rng.randbytes(256 << 10))

    def path(self, relative):
        return os.path.join(self.folder, relative)

    def write(self, relative, text):
        self.write_bytes(relative, text.encode())

    def write_bytes(self, relative, data):
        os.makedirs(os.path.dirname(self.path(relative)), exist_ok=True)
        with open(self.path(relative), "wb") as file:
            file.write(data)

    # -- changes ------------------------------------------------------------------------------

    def mutate(self, count):
        """Makes `count` random changes to the inputs (and now and then to an output, as a user
        might); returns what each was."""
        return [self.mutate_one() for _ in range(count)]

    def mutate_one(self, outputs=True):
        """One random change; to an output too when `outputs`. An output edited while its job
        writes it is another writer, which nothing can tell from the job (see the concurrent
        campaign): not while a run goes on."""
        rng = self.rng
        kinds = ["append", "same-size", "rewrite", "touch", "new-inode", "dir-add", "dir-remove", "blob-byte",
                 "first-line", "later-line", "flag"]
        kind = rng.choice(kinds + (["output"] if outputs else []))
        text_inputs = [f"in/{i}.txt" for i in range(1, 5)] + ["in/extra.txt", "in/x.txt"]
        target = rng.choice(text_inputs)
        if kind == "append":
            with open(self.path(target), "a") as file:
                file.write(words(rng, 1))
        elif kind == "same-size":
            # The same size, often within the second of the last hashing: the cache's racy case.
            data = bytearray(open(self.path(target), "rb").read())
            if data:
                data[rng.randrange(len(data))] = ord(rng.choice("abcdefgh"))
                with open(self.path(target), "r+b") as file:
                    file.write(data)
        elif kind == "rewrite":
            self.write(target, words(rng, 2 + rng.randrange(5)))
        elif kind == "touch":
            os.utime(self.path(target))
        elif kind == "new-inode":
            data = open(self.path(target), "rb").read()
            self.write_bytes(target + ".new", data)
            os.replace(self.path(target + ".new"), self.path(target))
        elif kind == "dir-add":
            target = f"in/dir/{rng.choice('abcdefg')}.txt"
            self.write(target, words(rng, 2))
        elif kind == "dir-remove":
            names = sorted(os.listdir(self.path("in/dir")))
            if names:
                target = "in/dir/" + rng.choice(names)
                os.unlink(self.path(target))
        elif kind == "blob-byte":
            target = "in/blob.bin"
            with open(self.path(target), "r+b") as file:
                file.seek(rng.randrange(256 << 10))
                file.write(bytes([rng.randrange(256)]))
        elif kind == "first-line":
            target = "in/x.txt"
            lines = open(self.path(target)).read().splitlines(keepends=True)
            lines[0:1] = [words(rng, 1)]
            self.write(target, "".join(lines))
        elif kind == "later-line":
            target = "in/x.txt"  # leaves out/x.first as it was: after is cut off
            with open(self.path(target), "a") as file:
                file.write(words(rng, 1))
        elif kind == "flag":
            target = "in/flag.txt"
            self.write(target, rng.choice(["ok\n", "fail\n", "ok again\n"]))
        else:
            outputs = [o for _, _, outs in JOBS.values() for o in outs if os.path.exists(self.path(o))]
            if not outputs:
                return "output: none yet"
            target = rng.choice(outputs)
            if rng.randrange(2):
                os.unlink(self.path(target))
                return f"output-removed {target}"
            with open(self.path(target), "a") as file:
                file.write("edited by hand\n")
        return f"{kind} {target}"

    # -- oprun ----------------------------------------------------------------------------------

    def start(self, *arguments, events=None):
        """oprun on the manifest, not waited for."""
        command = [self.oprun, "-q", "--grace", "0.5"]
        if events:
            command += ["--events", events]
        command += [self.manifest, *arguments]
        return subprocess.Popen(command, cwd=self.folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def dry_run(self):
        """`oprun -n`: each job's decision, by name, and the whole text."""
        done = subprocess.run(
            [self.oprun, "-n", self.manifest], cwd=self.folder, capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"oprun -n exited {done.returncode}: {done.stderr}")
        decisions = {}
        for line in done.stdout.splitlines():
            match = re.match(r"\s*\d+\. (\S+)\s+(.*)$", line)
            if match:
                decisions[match.group(1)] = match.group(2)
        if set(decisions) != set(JOBS):
            raise RuntimeError(f"oprun -n named {sorted(decisions)}, not the manifest's jobs:\n{done.stdout}")
        return decisions, done.stdout + done.stderr

    def wrongly_up_to_date(self, job):
        """Why `job` is not up to date now, judged from its files: an output that is not what
        its inputs make, or a job that would fail; None when it is up to date."""
        for output in JOBS[job][2]:
            expected = subprocess.run(["sh", "job.sh", "expect", output], cwd=self.folder, capture_output=True)
            if expected.returncode != 0:
                return f"{output}: the job would fail now ({expected.stderr.decode().strip() or 'exit 1'})"
            try:
                actual = open(self.path(output), "rb").read()
            except FileNotFoundError:
                return f"{output} is missing"
            if actual != expected.stdout:
                return f"{output} holds {len(actual)} bytes that its inputs do not make ({len(expected.stdout)} expected)"
        return None

    def leftovers(self):
        """The pids of processes that carry this folder's token."""
        needle = f"CAMPAIGN_TOKEN={self.token}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as file:
                    if needle in file.read():
                        found.append(int(entry))
            except OSError:
                continue
        return found

    def wait_for_no_leftovers(self, limit=30.0):
        """Waits until no process of the folder's runs is left; the ones left after `limit`
        seconds."""
        deadline = time.monotonic() + limit
        while True:
            left = self.leftovers()
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.02)

    def keep(self, destination):
        """Copies the folder, `.oprun/` included, to `destination` for a look afterwards."""
        shutil.rmtree(destination, ignore_errors=True)
        shutil.copytree(self.folder, destination, symlinks=True)


def seeded(seed):
    return random.Random(seed)


def campaign_arguments(description, name, runs):
    """The command line both campaigns take; `name` places their log and kept folders under
    .build/."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--oprun", default=os.environ.get("OPRUN", ".build/debug/oprun"))
    parser.add_argument("--log", default=f".build/{name}.log")
    parser.add_argument("--keep", default=f".build/{name}-kept")
    return parser.parse_args()
