#!/usr/bin/env bash
# How far emulation is from the host: the same `fault` experiment (4K vs 64K mTHP) on the host
# backend (this machine's own kernel; needs root and a kernel with per-size mTHP knobs), under
# TCG, and under TCG with icount (instruction-time), in one invocation. Prints per mode the
# 64K/4K ratio of the mean faults_per_sec and sys_s, and each knob set's CV, side by side.
# The x86_64 quickstart kernel must be cached (run experiments/quickstart.yaml once). Needs jq.
# Usage: bench/fidelity.sh [size (256M)] [repeat (8)]   (FOLIOLAB: the binary, default build/foliolab)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256M}
repeat=${2:-8}
bin=${FOLIOLAB:-./build/foliolab}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/fidelity.yaml" <<EOF
name: fidelity
kernels: [{name: 6.12-mthp-vmstat, patches: mthp-vmstat}]   # the quickstart's, cached
archs: [x86_64]
machine: {cpus: 1, memory: 1G}
knobs:
  "4K": {hugepages-64kB/enabled: never}
  "64K": {hugepages-64kB/enabled: always}
workloads:
  - name: fault
    params: {size: $size, threads: 1, mapping: anon}
repeat: $repeat
timeout: 600
EOF
# One guest at a time (-j 1): a guest beside would disturb the wall timings.
run() {
  local mode=$1
  shift
  local start end
  start=$(date +%s.%N)
  if ! nice "$bin" run "$out/fidelity.yaml" -j 1 --results "$out/$mode" "$@" \
    > "$out/$mode.log" 2>&1; then
    echo "$mode: foliolab run failed (log below)" >&2
    tail -20 "$out/$mode.log" >&2
    return 1
  fi
  end=$(date +%s.%N)
  echo "$end - $start" | bc > "$out/$mode.seconds"
}
run host --backend host
run tcg --accel tcg --timing wall
run icount --accel tcg --timing icount
# "<knob set> <metric> <mean> <cv %>" of one mode's ok runs.
stats() {
  jq -r 'select(.status == "ok") | .identity.knob_set.name as $k |
    (["faults_per_sec", "sys_s"][]) as $m | [.reps[].metrics[$m]] as $v |
    ($v | add / length) as $mean |
    (($v | map(. - $mean | . * .) | add) / (($v | length) - 1) | sqrt) as $sd |
    "\($k) \($m) \($mean) \(100 * $sd / $mean)"' "$out/$1"/*/*/runs/*/run.json
}
printf '%-11s %15s %11s %19s %19s %8s\n' mode "faults/s 64K/4K" "sys_s 64K/4K" \
  "CV faults/s 4K|64K" "CV sys_s 4K|64K" "run s"
for mode in host tcg icount; do
  stats "$mode" > "$out/$mode.stats"
  awk -v mode="$mode" -v secs="$(cat "$out/$mode.seconds")" '
    { mean[$1 "/" $2] = $3; cv[$1 "/" $2] = $4 }
    END {
      printf "%-11s %14.2fx %10.2fx %9.2f%%|%6.2f%% %9.2f%%|%6.2f%% %8.0f\n",
        mode == "icount" ? "tcg+icount" : mode,
        mean["64K/faults_per_sec"] / mean["4K/faults_per_sec"], mean["64K/sys_s"] / mean["4K/sys_s"],
        cv["4K/faults_per_sec"], cv["64K/faults_per_sec"], cv["4K/sys_s"], cv["64K/sys_s"], secs
    }' "$out/$mode.stats"
done
echo "fault size=$size, repeat=$repeat, one guest at a time; host kernel $(uname -r)"
