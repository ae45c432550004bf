#!/bin/sh
# The seed corpus of the state fuzzer (make fuzz TARGET=state): the journals and hash caches
# that OPRUN leaves when it runs examples from jobs/, each copied as jobs.yaml (the name the
# fuzzer's manifest has, so that their headers count as its runs) into a folder of its own.
# Each seed starts with the byte that tells the fuzzer what follows (see StateFuzzer.swift), its
# value modulo 4: 0 one journal, 1 the journals of one folder separated by U+001E lines, 2 and 3
# a hash cache; and, divided by 4, which readers read journals: the seeds take each in turn.
#   Fuzz/state-seeds.sh OPRUN CORPUS
set -eu
oprun=$(realpath "$1")
corpus=$2
jobs=$(cd "$(dirname "$0")/../jobs" && pwd)
mkdir -p "$corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs oprun in the example's folder; a run that fails is a journal too.
run() { (cd "$folder" && "$oprun" -q jobs.yaml "$@" > /dev/null 2>&1) || true; }

# The first byte of a seed of `mode`, each choice of readers in turn.
seeds=0
first_byte() {
  seeds=$((seeds + 1))
  printf "\\$(printf %o $((48 + $1 + 4 * (seeds % 6))))"
}

# The folder's journals as seeds, each alone and all of them in one.
keep_journals() {
  for journal in "$folder"/.oprun/runs/*.ndjson; do
    [ -e "$journal" ] || continue
    { first_byte 0; cat "$journal"; } > "$corpus/seed-$example-$(basename "$journal" .ndjson)"
  done
  { first_byte 1; first=yes
    for journal in "$folder"/.oprun/runs/*.ndjson; do
      [ -e "$journal" ] || continue
      [ -n "$first" ] || printf '\036\n'
      first=; cat "$journal"
    done; } > "$corpus/seed-$example-all"
}

# The folder's hash cache as seeds, as it is now (after `step`).
keep_hashes() {
  [ -e "$folder/.oprun/hashes" ] || return 0
  { printf 2; cat "$folder/.oprun/hashes"; } > "$corpus/seed-$example-hashes-$1"
  { printf 3; cat "$folder/.oprun/hashes"; } > "$corpus/seed-$example-hashes-$1-checked"
}

for example in incremental matrix run-if failure-policies completions priorities resume shared-settings; do
  folder=$work/$example
  mkdir -p "$folder"
  cp "$jobs/$example.yaml" "$folder/jobs.yaml"
  [ ! -d "$jobs/$example" ] || cp -R "$jobs/$example" "$folder/"
  run
  run
  run -r
  case $example in
    incremental)
      keep_hashes first
      # A changed source, a run of one target, a forced run: records carried forward, the
      # cache written whole; then one file touched: once the files the runs wrote are no
      # longer racy, the touched one alone is hashed again, in a block appended to the cache.
      echo '/* changed */' >> "$folder/incremental/src/greet.c"
      run
      run link
      run -B
      keep_hashes rewritten
      sleep 2
      touch "$folder/incremental/src/sum.c"
      run -n
      run -n
      keep_hashes appended
      ;;
  esac
  keep_journals
done
echo "$(ls "$corpus" | wc -l) seeds in $corpus"
