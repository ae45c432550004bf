#!/usr/bin/env bash
# Runs the tests `swift build --build-tests` made in four processes at once, each given a share
# of the suites (the unit tests, and three shares of the end-to-end tests): their lines as they
# come, then which share passed and every test that failed.
#
# Why: one test process runs only as many tests at a time as the machine has cores, and an
# end-to-end test spends most of its time waiting for the oprun it started. In one process on
# two cores, `make test` took 390 to 690 s for 650 s of CPU, depending on which waits met;
# in four, 200 to 240 s (about what two cores need for the CPU the tests take).
# `swift test` cannot be started twice on one build folder (it locks it), so the test binary
# is run directly, as `swift test` runs it.
#
# Usage: scripts/test-in-shards.sh TEST-BINARY [ARGUMENTS FOR EVERY SHARD…]
set -uo pipefail
binary=$1
shift
# Every test belongs to exactly one share: the first takes all that the others do not. The unit
# tests have a process of their own: behind end-to-end tests that wait, they waited too.
shares=(
  "--skip EndToEndTests\.[A-Z]"
  "--filter EndToEndTests\.[A-F]"
  "--filter EndToEndTests\.[G-R]"
  "--filter EndToEndTests\.[S-Z]"
)
logs=$(mktemp -d "${TMPDIR:-/tmp}/oprun-test-shards.XXXXXX")
trap 'rm -rf "$logs"' EXIT
pids=()
for index in "${!shares[@]}"; do
  # A command started with `&` ignores SIGINT, and so would the oprun a test interrupts;
  # NO_COLOR as `swift test` sets it.
  # shellcheck disable=SC2086 # each share is an option and its pattern
  NO_COLOR=1 env --default-signal=INT,QUIT "$binary" --testing-library swift-testing ${shares[$index]} "$@" 2>&1 |
    tee "$logs/$index" &
  pids+=($!)
done
status=0
echo
for index in "${!shares[@]}"; do
  if wait "${pids[$index]}" && grep -q "^✔ Test run with" "$logs/$index"; then
    echo "share $((index + 1)) (${shares[$index]}): $(grep "^✔ Test run with" "$logs/$index")"
  else
    status=1
    echo "share $((index + 1)) (${shares[$index]}): FAILED"
    grep "^✘ Test .* failed\|^✘ Test run" "$logs/$index" | sed 's/^/  /'
  fi
done
exit "$status"
