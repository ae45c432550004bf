#!/usr/bin/env bash
# What `secrets` cost (SPEC §15): one job writing 100 MB of output (base64 lines of 76
# characters), shown prefixed into a file, with no secrets, with 10 secrets that never occur,
# and with 10 secrets of which one occurs on every line (the masking's worst case).
# Usage: Benchmarks/secrets.sh   (OPRUN=path/to/oprun to measure another build)
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
[ -x "$OPRUN" ] || make build
OPRUN=$(realpath "$OPRUN")
source Benchmarks/need.sh
need hyperfine hyperfine

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
cd "$workdir"

head -c 75000000 /dev/zero | openssl enc -aes-128-ctr -nosalt -pass pass:oprun -pbkdf2 2>/dev/null | base64 > clean.txt
# The same size, with the fifth secret on every line in place of its first 24 characters.
sed 's/^.\{24\}/Secret-4-0123456789abcde/' clean.txt > leaky.txt

secrets=""
env=""
for index in 0 1 2 3 4 5 6 7 8 9; do
  secrets+="SECRET_$index, "
  env+="  SECRET_$index: Secret-$index-0123456789abcde"$'\n'
done

for name in clean leaky; do
  printf 'jobs:\n  write: {command: cat %s.txt}\n' "$name" > "$name-none.yaml"
  printf 'secrets: [%s]\nenv:\n%sjobs:\n  write: {command: cat %s.txt}\n' "${secrets%, }" "$env" "$name" > "$name-ten.yaml"
done

hyperfine --warmup 2 --runs "${RUNS:-10}" --export-markdown secrets.md \
  -n 'no secrets' "$OPRUN clean-none.yaml -q --no-journal > out.txt" \
  -n '10 secrets, none in the output' "$OPRUN clean-ten.yaml -q --no-journal > out.txt" \
  -n '10 secrets, one on every line' "$OPRUN leaky-ten.yaml -q --no-journal > out.txt"
grep -c 'Secret-4' out.txt && { echo "secrets.sh: a secret was shown" >&2; exit 1; }
cat secrets.md
