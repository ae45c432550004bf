#!/usr/bin/env bash
# Matrix jobs: time and peak memory of `oprun check` and `oprun -n` on 100 matrix jobs of
# 1,000 instances each (10 × 10 × 10), every instance depending on the same instance of the
# job before through `${{ matrix.AXIS }}`; then a matrix of 10^10 instances, which must be
# refused at once.
# Usage: Benchmarks/matrix.sh   (OPRUN=path/to/oprun to measure another build)
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
if [ ! -x "$OPRUN" ]; then
  swift build -c release --static-swift-stdlib --product oprun
fi
[ -x /usr/bin/time ] || { echo "matrix.sh: /usr/bin/time (package 'time') is needed" >&2; exit 1; }

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

axes='matrix: {a: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], c: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}'
{
  echo "jobs:"
  for i in $(seq 0 99); do
    echo "  j$i:"
    echo "    $axes"
    echo "    command: ./step.sh $i \${{ matrix.a }} \${{ matrix.b }} \${{ matrix.c }}"
    if [ "$i" -gt 0 ]; then
      echo "    dependencies: [\"j$((i - 1))[\${{ matrix.a }},\${{ matrix.b }},\${{ matrix.c }}]\"]"
    fi
  done
} > "$workdir/matrix.yaml"
{
  echo "jobs:"
  echo "  huge:"
  printf '    matrix: {'
  for i in $(seq 0 9); do printf 'a%d: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]%s' "$i" "$([ "$i" -lt 9 ] && echo ', ')"; done
  echo '}'
  echo "    command: echo"
} > "$workdir/huge.yaml"

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 2 --runs 10 "$OPRUN check $workdir/matrix.yaml" "$OPRUN -n $workdir/matrix.yaml"
fi
/usr/bin/time -f "check: %e s, peak RSS %M KB" "$OPRUN" check "$workdir/matrix.yaml"
/usr/bin/time -f "plan (-n): %e s, peak RSS %M KB" "$OPRUN" -n "$workdir/matrix.yaml" >/dev/null
/usr/bin/time -f "10^10 instances refused: %e s, peak RSS %M KB" "$OPRUN" check "$workdir/huge.yaml" 2>&1 |
  grep -E 'error:|refused' || true
