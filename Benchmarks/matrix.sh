#!/usr/bin/env bash
# Matrix jobs: time and peak memory of `oprun check` and `oprun -n` on 100 matrix jobs of
# 1,000 instances each (10 × 10 × 10), every instance depending on the same instance of the
# job before through `${{ matrix.AXIS }}`; then a matrix of 10^10 instances, which must be
# refused at once; then one matrix of 100,000 instances (100 × 1,000) with 64,500 `exclude`
# entries naming both axes and 500 naming one (expansion must stay linear in instances
# plus entries).
# Usage: Benchmarks/matrix.sh   (OPRUN=path/to/oprun to measure another build)
set -euo pipefail
cd "$(dirname "$0")/.."

OPRUN=${OPRUN:-.build/release/oprun}
[ -x "$OPRUN" ] || make build
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
{
  echo "jobs:"
  echo "  wide:"
  echo "    matrix:"
  echo "      a: [$(seq -s ', ' 0 99)]"
  echo "      b: [$(seq -s ', ' 0 999)]"
  echo "      exclude:"
  awk 'BEGIN { for (a = 0; a < 64; a++) for (b = 0; b < 1000; b++) printf "        - {a: %d, b: %d}\n", a, b }'
  awk 'BEGIN { for (b = 0; b < 1000; b += 2) printf "        - {b: %d}\n", b }'
  awk 'BEGIN { for (b = 1; b < 1000; b += 2) printf "        - {a: 99, b: %d}\n", b }'
  echo "    command: echo \${{ matrix.a }} \${{ matrix.b }}"
} > "$workdir/excludes.yaml"

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 2 --runs 10 "$OPRUN check $workdir/matrix.yaml" "$OPRUN -n $workdir/matrix.yaml"
fi
/usr/bin/time -f "check: %e s, peak RSS %M KB" "$OPRUN" check "$workdir/matrix.yaml"
/usr/bin/time -f "plan (-n): %e s, peak RSS %M KB" "$OPRUN" -n "$workdir/matrix.yaml" >/dev/null
/usr/bin/time -f "100,000 instances, 65,000 excludes (check): %e s, peak RSS %M KB" "$OPRUN" check "$workdir/excludes.yaml" 2>&1 |
  grep -v 'warning:' || true
/usr/bin/time -f "10^10 instances refused: %e s, peak RSS %M KB" "$OPRUN" check "$workdir/huge.yaml" 2>&1 |
  grep -E 'error:|refused' || true
