#!/usr/bin/env python3
"""Writes one trivial-job graph in three forms: oprun YAML, build.ninja and a Makefile.

usage: gen-graphs.py SHAPE N OUTDIR    SHAPE: flat | chain | layered (layers of 100, 2 deps each)
Every job runs `true` through /bin/sh, which is what all three tools then spawn.
"""
import sys

shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]


def deps(i):
    if shape == "flat":
        return []
    if shape == "chain":
        return [i - 1] if i > 0 else []
    width = 100
    layer = i // width
    if layer == 0:
        return []
    base = (layer - 1) * width
    return sorted({base + (i * 7) % width, base + (i * 13 + 1) % width})


with open(f"{out}/{shape}.yaml", "w") as f:
    f.write(f"name: {shape}\nmax-concurrent: 2\njobs:\n")
    for i in range(n):
        d = deps(i)
        f.write(f"  j{i}:\n    command: 'true'\n")
        if d:
            f.write("    dependencies: [" + ", ".join(f"j{x}" for x in d) + "]\n")

with open(f"{out}/{shape}.ninja", "w") as f:
    f.write("rule r\n  command = true\n\n")
    for i in range(n):
        d = deps(i)
        implicit = (" | " + " ".join(f"j{x}" for x in d)) if d else ""
        f.write(f"build j{i}: r{implicit}\n")
    f.write("build all: phony " + " ".join(f"j{i}" for i in range(n)) + "\ndefault all\n")

with open(f"{out}/{shape}.mk", "w") as f:
    f.write("SHELL = /bin/sh\n.PHONY: all " + " ".join(f"j{i}" for i in range(n)) + "\n")
    f.write("all: " + " ".join(f"j{i}" for i in range(n)) + "\n")
    for i in range(n):
        d = deps(i)
        # `: ;` forces make through /bin/sh -c like the others (make execs simple commands directly).
        f.write(f"j{i}: " + " ".join(f"j{x}" for x in d) + "\n\t@true ;\n")
