#!/usr/bin/env python3
"""The kill campaign (`make kill-campaign RUNS=N`): oprun SIGKILLed at random moments of runs whose
jobs read inputs and write outputs, and then `oprun -n` held to the files.

In one folder (scripts/campaign_fixture.py), RUNS times: change some inputs at random, start
oprun (a random `-j`), and SIGKILL it after a random delay (now and then change an input while it
runs, or let it finish instead); wait until the watchdog has ended every job; then run `oprun -n`
and check each job it calls "up to date" against its files: its outputs must be exactly what its
inputs make now, and it must not be a job that would fail. After a run that finished with no
input changed during it, every job it ran or found up to date must be up to date.

The delays come from a seeded generator (SEED), so a campaign can be run again, but not replayed
exactly: when the kill lands depends on the machine. One line per run goes to the log; the folder
of a run that found something is copied, `.oprun/` included, under the kept folder.
"""

import collections
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time

from campaign_fixture import JOBS, Fixture, campaign_arguments


def job_states(events_file):
    """From an `--events` file: the jobs that were executing when it ends, and each finished
    job's outcome and whether it was up to date."""
    executing, finished = set(), {}
    try:
        lines = open(events_file).read().splitlines()
    except FileNotFoundError:
        return executing, finished
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the line the kill cut short
        if event.get("event") != "transition":
            continue
        if event["to"] == "executing":
            executing.add(event["job"])
        elif event["to"] == "finished":
            executing.discard(event["job"])
            finished[event["job"]] = (event["outcome"], event.get("up_to_date", False))
    return executing, finished


def main():
    arguments = campaign_arguments(__doc__, "kill-campaign", runs=100)
    oprun = os.path.abspath(arguments.oprun)
    rng = random.Random(arguments.seed)
    os.makedirs(os.path.dirname(os.path.abspath(arguments.log)), exist_ok=True)
    work = tempfile.mkdtemp(prefix="oprun-kill-campaign-")
    fixture = Fixture(oprun, rng, parent=work)
    events = os.path.join(work, "events.ndjson")
    counts = collections.Counter()
    reasons = collections.Counter()
    typical = 1.0  # seconds a run takes, as far as the finished ones tell
    started = time.monotonic()
    log = open(arguments.log, "a")
    log.write(f"# kill campaign: seed {arguments.seed}, {arguments.runs} runs, {oprun}, folder {fixture.folder}\n")

    # A first run that finishes, so that the campaign starts from records.
    fixture.start().wait()
    for run in range(1, arguments.runs + 1):
        changes = fixture.mutate(rng.randint(1, 4))
        finish = rng.random() < 0.15
        change_while_running = not finish and rng.random() < 0.25
        concurrency = rng.choice([[], ["-j", "1"], ["-j", "2"], ["-j", "4"]])
        if os.path.exists(events):
            os.unlink(events)
        began = time.monotonic()
        process = fixture.start(*concurrency, events=events)
        outcome = "finished"
        if finish:
            status = process.wait()
        else:
            delay = rng.uniform(0, typical)
            if change_while_running:
                time.sleep(rng.uniform(0, delay))
                changes.append("while running: " + fixture.mutate_one(outputs=False))
            time.sleep(max(0.0, delay - (time.monotonic() - began)))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                outcome = "killed"
            status = process.wait()
        took = time.monotonic() - began
        if outcome == "finished":
            # The delays are drawn up to about as long as a run takes.
            typical = max(0.2, 0.8 * typical + 0.2 * took)
        executing, finished = job_states(events)
        left = fixture.wait_for_no_leftovers()
        counts["runs"] += 1
        counts[outcome] += 1
        if outcome == "killed":
            # As far as the events written before the kill tell.
            counts["kills with a job executing"] += bool(executing)
        findings = []
        if left:
            counts["leftover processes"] += 1
            findings.append(f"processes left 30 s after the run: {left}")
        decisions, text = fixture.dry_run()
        for job, reason in decisions.items():
            reasons[re.sub(r"'[^']*'", "'…'", reason)] += 1
            if reason == "up to date":
                counts["jobs judged up to date"] += 1
                why = fixture.wrongly_up_to_date(job)
                if why:
                    counts["wrong up to date"] += 1
                    findings.append(f"{job} is called up to date, but {why}")
        if outcome == "finished" and not change_while_running:
            for job, (result, _) in finished.items():
                if result == "succeeded" and decisions[job] != "up to date":
                    counts["not up to date after a finished run"] += 1
                    findings.append(f"{job} succeeded in a finished run, then -n said: {decisions[job]}")
        log.write(
            f"run={run} {outcome} after={took:.3f}s status={status} executing={len(executing)} "
            f"finished={len(finished)} up_to_date={sum(r == 'up to date' for r in decisions.values())} "
            f"changes={changes!r} findings={findings!r}\n"
        )
        log.flush()
        if findings:
            kept = os.path.join(arguments.keep, f"seed-{arguments.seed}-run-{run}")
            fixture.keep(kept)
            with open(os.path.join(kept, "FINDINGS.txt"), "w") as file:
                file.write("\n".join(findings) + "\n\n" + text)
            print(f"run {run}: {findings} (kept in {kept})", file=sys.stderr)

    elapsed = time.monotonic() - started
    summary = [
        f"kill campaign: seed {arguments.seed}, {elapsed:.0f} s",
        f"  runs {counts['runs']}: killed {counts['killed']} ({counts['kills with a job executing']} with a job "
        f"executing), finished {counts['finished']}",
        f"  jobs judged up to date by -n: {counts['jobs judged up to date']}; wrong up to date: {counts['wrong up to date']}",
        f"  not up to date after a finished run: {counts['not up to date after a finished run']}",
        f"  runs leaving processes: {counts['leftover processes']}",
        "  -n decisions: " + ", ".join(f"{reason} {count}" for reason, count in reasons.most_common()),
    ]
    log.write("# " + "\n# ".join(summary) + "\n")
    print("\n".join(summary))
    shutil.rmtree(work, ignore_errors=True)  # the folder, the events files
    return 1 if counts["wrong up to date"] or counts["not up to date after a finished run"] or counts["leftover processes"] else 0


if __name__ == "__main__":
    sys.exit(main())
