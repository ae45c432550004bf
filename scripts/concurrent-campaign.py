#!/usr/bin/env python3
"""The concurrent campaign (`make concurrent-campaign RUNS=N`): two oprun processes at once in one
folder, and then whether each kept the records of what it did.

In one folder (scripts/campaign_fixture.py), RUNS times: change some inputs at random, then start
two runs of the manifest at once, each with `--events`, on the same targets, on targets whose
jobs overlap, on targets that share no job, or on every job, and wait for both. Then:

- `oprun log --json` must list both runs, each with its end line;
- each job the events of a run show finished `succeeded` must have a `succeeded` line in that
  run's journal (`oprun log --json RUN-ID`): a job line missing is a lost record;
- `oprun -n`: a job that succeeded in either run and is said to have "no record" is a lost
  record; a job said to be up to date must be (its outputs exactly what its inputs make, and
  not a job that would fail); and when the two runs shared no job, every job that succeeded
  in one of them must be up to date;
- no job ran in both runs: two runs never run one job with outputs at once (SPEC §10), the
  second waits for the first and then finds the job up to date (nothing changes while a pair
  runs), so a job both ran is a finding.

One line per pair goes to the log; the folder of a pair that found something is copied,
`.oprun/` included, under the kept folder.
"""

import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from campaign_fixture import JOBS, Fixture, campaign_arguments

def closure(target):
    """`target`'s jobs: it and everything it depends on, by instance."""
    names = {target} if target in JOBS else {name for name in JOBS if name.startswith(target + "[")}
    for name in list(names):
        for dependency in JOBS[name][0]:
            names |= closure(dependency)
    return names


# What the runs are given to run.
TARGETS = ["merge", "chain2", "folder", "blob", "after", "report", "cutoff", "flaky", "gen"]


def run_events(events_file):
    """From an `--events` file: the RUN-ID, whether `run-finished` came, and each finished job's
    outcome and whether its commands ran."""
    run, ended, finished = None, False, {}
    for line in open(events_file).read().splitlines():
        event = json.loads(line)
        if event["event"] == "run-started":
            run = event.get("run")
        elif event["event"] == "run-finished":
            ended = True
        elif event["event"] == "transition" and event["to"] == "finished":
            executed = not event.get("up_to_date") and not event.get("resumed")
            finished[event["job"]] = (event["outcome"], executed)
    return run, ended, finished


def choose_targets(rng):
    """Two lists of targets and how they relate: the same, overlapping, disjoint, or all."""
    shape = rng.choice(["same", "overlapping", "disjoint", "all"])
    while True:
        first = rng.sample(TARGETS, rng.randint(1, 2))
        second = first if shape == "same" else rng.sample(TARGETS, rng.randint(1, 2))
        if shape == "all":
            first, second = [], []
        jobs_first = set().union(*map(closure, first)) if first else set(JOBS)
        jobs_second = set().union(*map(closure, second)) if second else set(JOBS)
        shared = jobs_first & jobs_second
        if shape in ("same", "all") or (shape == "disjoint") == (not shared):
            return shape, first, second, shared


def oprun_json(fixture, *arguments):
    done = subprocess.run(
        [fixture.oprun, "log", "--json", *arguments], cwd=fixture.folder, capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(f"oprun log {' '.join(arguments)} exited {done.returncode}: {done.stderr}")
    return json.loads(done.stdout)


def main():
    arguments = campaign_arguments(__doc__, "concurrent-campaign", runs=50)
    oprun = os.path.abspath(arguments.oprun)
    rng = random.Random(arguments.seed)
    os.makedirs(os.path.dirname(os.path.abspath(arguments.log)), exist_ok=True)
    work = tempfile.mkdtemp(prefix="oprun-concurrent-campaign-")
    fixture = Fixture(oprun, rng, parent=work)
    counts = collections.Counter()
    shapes = collections.Counter()
    started = time.monotonic()
    log = open(arguments.log, "a")
    log.write(f"# concurrent campaign: seed {arguments.seed}, {arguments.runs} pairs, {oprun}, folder {fixture.folder}\n")

    fixture.start().wait()
    for pair in range(1, arguments.runs + 1):
        changes = fixture.mutate(rng.randint(0, 3))
        shape, first, second, shared = choose_targets(rng)
        shapes[shape] += 1
        events = [os.path.join(work, f"events-{side}.ndjson") for side in "ab"]
        processes = [
            fixture.start(*rng.choice([[], ["-j", "1"], ["-j", "4"]]), *targets, events=file)
            for targets, file in zip([first, second], events)
        ]
        statuses = [process.wait() for process in processes]
        left = fixture.wait_for_no_leftovers()
        findings = []
        if left:
            counts["leftover processes"] += 1
            findings.append(f"processes left 30 s after the runs: {left}")
        runs = [run_events(file) for file in events]
        counts["pairs"] += 1
        counts["runs"] += 2

        # Both runs listed, each finished.
        listed = {entry["run"]: entry for entry in oprun_json(fixture, fixture.manifest)}
        for run, ended, _ in runs:
            if run not in listed:
                counts["runs missing from oprun log"] += 1
                findings.append(f"oprun log does not list run {run}")
            elif listed[run]["exit_code"] is None:
                counts["runs without an end line"] += 1
                findings.append(f"oprun log shows run {run} unfinished")

        # Every success a run reported is in its journal.
        succeeded_anywhere = set()
        for run, _, finished in runs:
            recorded = {line["job"]: line["outcome"] for line in oprun_json(fixture, run)["jobs"]}
            for job, (outcome, _) in finished.items():
                if outcome != "succeeded":
                    continue
                succeeded_anywhere.add(job)
                counts["successes"] += 1
                if recorded.get(job) != "succeeded":
                    counts["lost records"] += 1
                    findings.append(f"run {run}: {job} succeeded, its journal has {recorded.get(job)!r}")

        # The jobs whose commands both runs ran: the second should have found each up to date.
        written_twice = {
            job for job, (outcome, executed) in runs[0][2].items()
            if outcome == "succeeded" and executed and runs[1][2].get(job, ("", False)) == ("succeeded", True)
        }
        counts["jobs run by both"] += len(written_twice)
        for job in sorted(written_twice):
            findings.append(f"{job} ran in both runs")
        decisions, text = fixture.dry_run()
        garbled = []
        for job, reason in decisions.items():
            if reason == "up to date":
                counts["jobs judged up to date"] += 1
                why = fixture.wrongly_up_to_date(job)
                if why and job in written_twice:
                    counts["up to date with outputs two runs wrote at once"] += 1
                    garbled.append(f"{job}: {why}")
                    findings.append(f"{job} is called up to date over outputs both runs wrote, but {why}")
                elif why:
                    counts["wrong up to date"] += 1
                    findings.append(f"{job} is called up to date, but {why}")
            if job not in succeeded_anywhere:
                continue
            if reason.startswith("runs: no record"):
                counts["lost records"] += 1
                findings.append(f"{job} succeeded, then -n said: {reason}")
            elif reason != "up to date":
                if closure(job) & shared:
                    counts["run by both, runs again"] += 1
                else:
                    counts["run by one, not up to date"] += 1
                    findings.append(f"{job} succeeded in one run only, then -n said: {reason}")

        log.write(
            f"pair={pair} {shape} targets={first}/{second} statuses={statuses} runs={[r for r, _, _ in runs]} "
            f"changes={changes!r} run_by_both={sorted(written_twice)} garbled={garbled!r} findings={findings!r}\n"
        )
        # A user who finds such an output removes it, and the next run writes it again: the
        # next pairs start from outputs one run wrote.
        for entry in garbled:
            for output in JOBS[entry.split(":")[0]][2]:
                if os.path.exists(fixture.path(output)):
                    os.unlink(fixture.path(output))
        log.flush()
        if findings:
            kept = os.path.join(arguments.keep, f"seed-{arguments.seed}-pair-{pair}")
            fixture.keep(kept)
            with open(os.path.join(kept, "FINDINGS.txt"), "w") as file:
                file.write("\n".join(findings) + "\n\n" + text)
            for side, file in zip("ab", events):
                os.replace(file, os.path.join(kept, f"events-{side}.ndjson"))
            print(f"pair {pair}: {findings} (kept in {kept})", file=sys.stderr)

    elapsed = time.monotonic() - started
    summary = [
        f"concurrent campaign: seed {arguments.seed}, {elapsed:.0f} s",
        f"  pairs {counts['pairs']} (" + ", ".join(f"{shape} {count}" for shape, count in shapes.most_common()) + ")",
        f"  successes reported by the runs: {counts['successes']}; lost records: {counts['lost records']}",
        f"  runs missing from oprun log: {counts['runs missing from oprun log']}; "
        f"without an end line: {counts['runs without an end line']}",
        f"  jobs judged up to date by -n: {counts['jobs judged up to date']}; wrong up to date: {counts['wrong up to date']}",
        f"  jobs both runs ran: {counts['jobs run by both']}; of them up to date with outputs no run of "
        f"their commands makes (two writers at once): {counts['up to date with outputs two runs wrote at once']}",
        f"  run by one run alone and not up to date afterwards: {counts['run by one, not up to date']}; "
        f"run by both and running again: {counts['run by both, runs again']}",
        f"  pairs leaving processes: {counts['leftover processes']}",
    ]
    log.write("# " + "\n# ".join(summary) + "\n")
    print("\n".join(summary))
    shutil.rmtree(work, ignore_errors=True)  # the folder, the events files
    bad = ["lost records", "runs missing from oprun log", "runs without an end line", "wrong up to date",
           "up to date with outputs two runs wrote at once", "jobs run by both", "run by one, not up to date",
           "leftover processes"]
    return 1 if any(counts[name] for name in bad) else 0


if __name__ == "__main__":
    sys.exit(main())
