#!/bin/bash
# Spreads one foliolab experiment over a Slurm cluster: an array job of N shards, then a merge
# job that waits for all of them.
#   examples/slurm/submit.sh EXPERIMENT.yaml N RESULTS_DIR [extra sbatch options...]
# RESULTS_DIR must be visible from every node (shared filesystem). Prints the job ids:
#   shards: <array job id>
#   merge: <merge job id>
set -euo pipefail
if (($# < 3)); then
  echo "usage: $0 EXPERIMENT.yaml N RESULTS_DIR [sbatch options...]" >&2
  exit 2
fi
experiment=$(realpath "$1")
n=$2
results=$(realpath -m "$3")
shift 3
here=$(dirname "$(realpath "$0")")
mkdir -p "$results/logs"
export FOLIOLAB_EXPERIMENT="$experiment" FOLIOLAB_RESULTS="$results" FOLIOLAB_SHARDS="$n"
shards=$(sbatch --parsable --array="1-$n" --output="$results/logs/shard-%a.log" "$@" "$here/shard.sbatch")
shards=${shards%%;*}  # "<id>;<cluster>" on multi-cluster setups
merge=$(sbatch --parsable --dependency="afterany:$shards" --output="$results/logs/merge.log" "$@" \
  "$here/merge.sbatch")
echo "shards: $shards"
echo "merge: ${merge%%;*}"
