#!/usr/bin/env python3
"""Writes one trivial-job graph in the forms each tool reads: oprun YAML, build.ninja, Makefiles.

usage: gen-graphs.py SHAPE N OUTDIR    SHAPE: flat | chain | layered (layers of 100, 2 deps each)
Every job runs `true`. oprun and make run such a command directly (SHAPE.yaml, SHAPE.mk);
ninja always goes through /bin/sh -c; SHAPE-sh.yaml and SHAPE-sh.mk force oprun and make
through the shell too (a trailing `;`), for the comparison at the shell's floor.
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


for suffix, command in (("", "true"), ("-sh", "true ;")):
    with open(f"{out}/{shape}{suffix}.yaml", "w") as f:
        f.write(f"name: {shape}\nmax-concurrent: 2\njobs:\n")
        for i in range(n):
            d = deps(i)
            f.write(f"  j{i}:\n    command: '{command}'\n")
            if d:
                f.write("    dependencies: [" + ", ".join(f"j{x}" for x in d) + "]\n")

with open(f"{out}/{shape}.ninja", "w") as f:
    f.write("rule r\n  command = true\n\n")
    for i in range(n):
        d = deps(i)
        implicit = (" | " + " ".join(f"j{x}" for x in d)) if d else ""
        f.write(f"build j{i}: r{implicit}\n")
    f.write("build all: phony " + " ".join(f"j{i}" for i in range(n)) + "\ndefault all\n")

for suffix, command in (("", "true"), ("-sh", "true ;")):
    with open(f"{out}/{shape}{suffix}.mk", "w") as f:
        f.write("SHELL = /bin/sh\n.PHONY: all " + " ".join(f"j{i}" for i in range(n)) + "\n")
        f.write("all: " + " ".join(f"j{i}" for i in range(n)) + "\n")
        for i in range(n):
            d = deps(i)
            # `true ;` forces make through /bin/sh -c (make execs simple commands directly).
            f.write(f"j{i}: " + " ".join(f"j{x}" for x in d) + f"\n\t@{command}\n")
