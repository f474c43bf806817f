#!/usr/bin/env bash
# Ratio of `foliolab run -j 1` to `-j N` wall time on one experiment, measured back to back in
# one invocation (kernels must be cached: run the experiment once first). Prints ratios, not
# absolute claims, whether both matrices gave the same run ids, and per count metric of the
# workload catalog how many (run, rep) values are equal (timings are left out: they are what -j
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
# Per count metric: how many (run, rep) values the two matrices share exactly, and the largest
# difference of the rest.
join <(awk '{ print $1 "/" $2 "/" $3, $4 }' "$out/counts1") \
     <(awk '{ print $1 "/" $2 "/" $3, $4 }' "$out/countsn") > "$out/joined"
per_metric=$(awk '{ split($1, k, "/"); m = k[3]; n[m]++; d = $2 - $3; if (d < 0) d = -d;
                    if (d == 0) same[m]++; else if (d > most[m]) most[m] = d }
                  END { for (m in n) printf "%s %d/%d%s; ", m, same[m], n[m],
                                            (m in most) ? " (largest difference " most[m] ")" : "" }' \
               "$out/joined" | sed 's/; $//')
printf 'experiment %s: -j 1 / -j %s wall time = %.2fx (%s and %s runs; same run ids: %s)\n' \
  "$exp" "$n" "$(echo "$t1 / $tn" | bc -l)" "$(ls "$out"/j1/*/*/runs | wc -l)" \
  "$(ls "$out"/j"$n"/*/*/runs | wc -l)" "$([ "$ids1" = "$idsn" ] && echo yes || echo NO)"
printf 'count metrics equal at -j 1 and -j %s, (run, rep) values: %s\n' "$n" "$per_metric"
