#!/usr/bin/env bash
# Ratio of `foliolab run -j 1` to `-j N` wall time on one experiment, measured back to back in
# one invocation (kernels must be cached: run the experiment once first). Prints ratios, not
# absolute claims, and whether both matrices gave the same run ids and the same count metrics
# (the workload catalog's `count` metrics, rep by rep; timings are left out: they are what -j
# disturbs). Needs jq. Usage: bench/parallel-guests.sh [experiment.yaml] [N]
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
# "run_id rep metric value" for every count metric of every ok run of one matrix.
counts() {
  local run workload metrics
  for run in "$1"/*/*/runs/*/run.json; do
    workload=$(jq -r .identity.workload.name "$run")
    metrics=$(./build/foliolab workloads "$workload" | awk '$3 == "count" { print $1 }' | jq -R . | jq -sc .)
    jq -r --argjson m "$metrics" 'select(.status == "ok") | .identity.run_id as $id |
      .reps[] | .rep as $r | .metrics | to_entries[] | select(.key as $k | $m | index($k)) |
      "\($id) \($r) \(.key) \(.value)"' "$run"
  done | sort
}
counts "$out/j1" > "$out/counts1"
counts "$out/j$n" > "$out/countsn"
same_counts=yes
if ! cmp -s "$out/counts1" "$out/countsn"; then
  same_counts="NO: $(diff "$out/counts1" "$out/countsn" | grep -c '^[<>]') lines differ"
  diff "$out/counts1" "$out/countsn" | head -20
fi
printf 'experiment %s: -j 1 / -j %s wall time = %.2fx (%s and %s runs; same run ids: %s; same counts (%s values): %s)\n' \
  "$exp" "$n" "$(echo "$t1 / $tn" | bc -l)" "$(ls "$out"/j1/*/*/runs | wc -l)" \
  "$(ls "$out"/j"$n"/*/*/runs | wc -l)" "$([ "$ids1" = "$idsn" ] && echo yes || echo NO)" \
  "$(wc -l < "$out/counts1")" "$same_counts"
