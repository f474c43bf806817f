#!/usr/bin/env bash
# Ratio of `foliolab run -j 1` to `-j N` wall time on one experiment, measured back to back in
# one invocation (kernels must be cached: run the experiment once first). Prints ratios, not
# absolute claims. Usage: bench/parallel-guests.sh [experiment.yaml] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
exp=${1:-experiments/seeds/001-anon-mthp.yaml}
n=${2:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
wall() {
  local start end
  start=$(date +%s.%N)
  ./build/foliolab run "$exp" -j "$1" --results "$out/j$1" > "$out/j$1.log" 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
t1=$(wall 1)
tn=$(wall "$n")
ids1=$(ls "$out"/j1/*/*/runs | sort | md5sum)
idsn=$(ls "$out"/j"$n"/*/*/runs | sort | md5sum)
printf 'experiment %s: -j 1 / -j %s wall time = %.2fx (%s and %s runs; same run ids: %s)\n' \
  "$exp" "$n" "$(echo "$t1 / $tn" | bc -l)" "$(ls "$out"/j1/*/*/runs | wc -l)" \
  "$(ls "$out"/j"$n"/*/*/runs | wc -l)" "$([ "$ids1" = "$idsn" ] && echo yes || echo NO)"
