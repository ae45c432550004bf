#!/usr/bin/env python3
"""Times several commands in interleaved rounds (A B C D, A B C D, ...) and prints each one's
median wall time in milliseconds as JSON. Interleaving keeps a drift in the machine's speed
(other tenants, frequency changes) from landing on one command alone, as hyperfine's
one-command-after-another order lets it.

usage: interleave.py [--warmup N] ROUNDS NAME=COMMAND...     (each COMMAND is split on spaces;
N warm-up rounds first, 2 unless told)
"""
import json
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
warmup = 2
if args[0] == "--warmup":
    warmup, args = int(args[1]), args[2:]
rounds = int(args[0])
commands = [arg.split("=", 1) for arg in args[1:]]
times = {name: [] for name, _ in commands}
for _ in range(warmup):
    for _, command in commands:
        subprocess.run(command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
for _ in range(rounds):
    for name, command in commands:
        start = time.perf_counter()
        subprocess.run(command.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append((time.perf_counter() - start) * 1000)
print(json.dumps({name: statistics.median(values) for name, values in times.items()}))
