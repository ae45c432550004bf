#!/usr/bin/env bash
# Peak RSS of `oprun check` and of a whole run (`-j 2 -q --no-journal`), at 10,000 and 100,000
# trivial jobs, flat (no edges) and layered (two edges per job): memory should grow linearly in
# jobs plus edges. SIZES="10000 100000" by default; /usr/bin/time's maximum resident set.
set -euo pipefail
cd "$(dirname "$0")/.."
OPRUN=${OPRUN:-$PWD/.build/release/oprun}
SIZES=${SIZES:-10000 100000}
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · peak RSS (MB) and wall time (s)"
printf '%-8s %8s %7s   %10s %8s   %10s %8s\n' shape jobs edges "check MB" "check s" "run MB" "run s"
for n in $SIZES; do
  for shape in flat layered; do
    python3 Benchmarks/gen-graphs.py "$shape" "$n" "$work"
    edges=$(python3 -c 'import re, sys; print(sum(len(re.findall(r"j\d+", l)) for l in open(sys.argv[1]) if "dependencies" in l))' "$work/$shape.yaml")
    measure() { /usr/bin/time -f '%M %e' "$@" 2>&1 >/dev/null | tail -1; }
    read -r check_kb check_s < <(cd "$work" && measure "$OPRUN" check "$shape.yaml")
    read -r run_kb run_s < <(cd "$work" && measure "$OPRUN" -j 2 -q --no-journal "$shape.yaml")
    printf '%-8s %8d %7d   %10.1f %8.2f   %10.1f %8.2f\n' "$shape" "$n" "$edges" \
      "$(echo "$check_kb / 1024" | bc -l)" "$check_s" "$(echo "$run_kb / 1024" | bc -l)" "$run_s"
  done
done
