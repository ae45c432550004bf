#!/usr/bin/env python3
"""Times several commands in interleaved rounds (A B C D, C A D B, ...) and prints each one's
median wall time in milliseconds as JSON. Interleaving keeps a drift in the machine's speed
(other tenants, frequency changes) from landing on one command alone, as hyperfine's
one-command-after-another order lets it; each round's order is shuffled (seeded, so a series
can be repeated), so that what one command leaves the kernel to finish after it exits (freed
cgroups, page cache written back) falls on each of the others alike.

usage: interleave.py [--warmup N] [--cpu-rounds M] [--against BASE]... ROUNDS NAME=COMMAND...
Each COMMAND is split on spaces; N warm-up rounds first (2 unless told). INTERLEAVE_SEED picks
the rounds' orders (1 unless set). With --against, "NAME/BASE" gives the median over the rounds
of NAME's time divided by BASE's in the same round: the machine's speed drifts by more than
the few per cent a cost may be, even between series, and a ratio taken within a round cancels
what the drift does to both. With --cpu-rounds, M
more rounds run each command under `perf stat -i -e task-clock` and "NAME cpu" gives the median
milliseconds of CPU the command itself used, its children not counted (what it costs, whatever
else the machine runs); left out when perf cannot count here.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

args = sys.argv[1:]
warmup, cpu_rounds, bases = 2, 0, []
while args[0].startswith("--"):
    if args[0] == "--warmup":
        warmup = int(args[1])
    elif args[0] == "--cpu-rounds":
        cpu_rounds = int(args[1])
    elif args[0] == "--against":
        bases.append(args[1])
    args = args[2:]
rounds = int(args[0])
commands = [arg.split("=", 1) for arg in args[1:]]
times = {name: [] for name, _ in commands}
for _ in range(warmup):
    for _, command in commands:
        subprocess.run(command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
shuffler = random.Random(int(os.environ.get("INTERLEAVE_SEED", "1")))
for _ in range(rounds):
    for name, command in shuffler.sample(commands, len(commands)):
        start = time.perf_counter()
        subprocess.run(command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter() - start) * 1000)
medians = {name: statistics.median(values) for name, values in times.items()}
for against in bases:
    for name, values in times.items():
        if name != against:
            ratios = [value / base for value, base in zip(values, times[against])]
            medians[f"{name}/{against}"] = statistics.median(ratios)


def own_cpu(command):
    """Milliseconds of CPU `command` used itself (perf stat -i: its children not counted), or None."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".perf") as out:
        perf = ["perf", "stat", "-i", "-x,", "-e", "task-clock", "-o", out.name, "--"]
        try:
            subprocess.run(perf + command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        for line in out.read().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] == "task-clock" and fields[0].replace(".", "", 1).isdigit():
                return float(fields[0])
    return None


cpu = {name: [] for name, _ in commands}
for _ in range(cpu_rounds):
    for name, command in commands:
        value = own_cpu(command)
        if value is not None:
            cpu[name].append(value)
for name, values in cpu.items():
    if values:
        medians[name + " cpu"] = statistics.median(values)
print(json.dumps(medians))
