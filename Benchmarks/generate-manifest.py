#!/usr/bin/env python3
"""Writes a manifest of N jobs to stdout; every job after the second depends on two earlier ones."""
import random
import sys

count = int(sys.argv[1])
rng = random.Random(42)
out = ["name: bench", "max-concurrent: 8", "jobs:"]
for i in range(count):
    out.append(f"  job{i}:")
    out.append(f"    command: echo building part {i} of the benchmark graph")
    if i >= 2:
        a, b = rng.sample(range(i), 2)
        out.append(f"    dependencies: [job{a}, job{b}]")
    if i % 10 == 0:
        out.append("    priority: high")
sys.stdout.write("\n".join(out) + "\n")
