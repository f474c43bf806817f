#!/usr/bin/env bash
# Incremental kernel builds from a user's tree and from git refs, against cold builds, in one
# invocation (prints ratios, not absolute claims; goal for both: <= 1/8):
#   1. directory source: cold build of a copy of a 6.12 tree, then a rebuild after a one-line
#      .c edit;
#   2. git source: cold build at ref A, then ref B (one commit later, one .c line changed).
# Uses a fresh cache (and ccache) so that "cold" is cold: expect 2 cold kernel builds (10-25 min
# each on 2 cores). Needs ~8 GB in the scratch folder.
# Usage: bench/kernel-sources.sh [kernel tree (default: the unpacked Debian tree in the cache)] [scratch]
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:-$(ls -d "${FOLIOLAB_CACHE:-$HOME/.cache/foliolab}"/src/linux-source-6.12-*/pristine | head -1)}
scratch=${2:-$(mktemp -d /var/tmp/foliolab-bench.XXXXXX)}
trap 'rm -rf "$scratch"' EXIT
foliolab=./build/foliolab
file=mm/huge_memory.c
edit() {  # one line of real code changes: a pr_debug at the start of the first function
  sed -i '0,/^{$/s//{\n\tpr_debug("foliolab bench edit %d\\n", '"$2"');/' "$1/$file"
}
experiment() {  # name, kernels YAML lines
  printf 'name: %s\nkernels:\n%s\narchs: [x86_64]\nknobs: {"none": {}}\nworkloads: [{name: fault}]\n' "$1" "$2" \
    > "$scratch/$1.yaml"
  echo "$scratch/$1.yaml"
}
seconds() {  # experiment: wall seconds of `foliolab build-kernel` (with its own fresh cache)
  local start end
  start=$(date +%s.%N)
  "$foliolab" build-kernel "$1" --cache "$scratch/cache" > "$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
cp -a "$tree" "$scratch/dir"
dir_yaml=$(experiment dir "  - {name: k, source: $scratch/dir}")
dir_cold=$(seconds "$dir_yaml")
edit "$scratch/dir" 1
dir_edit=$(seconds "$dir_yaml")

mv "$scratch/dir" "$scratch/repo"
git -C "$scratch/repo" init -q -b main
git -C "$scratch/repo" add -f -A .
git -C "$scratch/repo" -c user.name=bench -c user.email=bench@example.org commit -q -m base
git -C "$scratch/repo" checkout -q -b edited
edit "$scratch/repo" 2
git -C "$scratch/repo" -c user.name=bench -c user.email=bench@example.org commit -q -am "one line"
git -C "$scratch/repo" checkout -q main
rm -rf "$scratch/cache"  # cold again, ccache included
a_yaml=$(experiment ref-a "  - {name: a, source: {git: $scratch/repo, ref: main}}")
b_yaml=$(experiment ref-b "  - {name: b, source: {git: $scratch/repo, ref: edited}}")
git_cold=$(seconds "$a_yaml")
git_switch=$(seconds "$b_yaml")
printf 'directory source: cold %.0fs, after a one-line edit of %s %.0fs: ratio %.3f (goal <= 0.125)\n' \
  "$dir_cold" "$file" "$dir_edit" "$(echo "$dir_edit / $dir_cold" | bc -l)"
printf 'git source: cold at main %.0fs, switch to the ref one commit later %.0fs: ratio %.3f (goal <= 0.125)\n' \
  "$git_cold" "$git_switch" "$(echo "$git_switch / $git_cold" | bc -l)"
