#!/usr/bin/env bash
# A newcomer's first run, phase by phase: what `bash scripts/quickstart.sh` does on a fresh
# machine, with a fresh kernel cache, a fresh build directory and a cold compiler cache, so
# nothing this machine built before is reused (Debian's packages are installed already if they
# are; the apt phase then measures the check alone). Prints each phase's seconds and share of
# the total, as measured in this one invocation, then in the same invocation:
# - the floor: `make tinyconfig` of the same tree (Debian's linux-source-6.12) for each arch,
#   built by the compiler alone (no ccache), the same target foliolab builds (x86_64 vmlinux,
#   arm64 Image); the first run as a ratio to the two (goal: <= 2.0);
# - the objects each kernel compiled (*.o in its build directory);
# - foliolab's own overhead: plain `make olddefconfig` + `make` of the quickstart x86_64 kernel's
#   own .config, with the same compiler command and ccache settings (a cold cache of its own),
#   against foliolab's x86_64 kernel phase (goal: <= 1.05).
# Usage: bench/first-run.sh [WORKDIR]   (default: a new temporary directory, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
export FOLIOLAB_CACHE="$work/cache" CCACHE_DIR="$work/ccache"
log="$work/run.log"
now() { date +%s.%N; }
# Every line of the run, prefixed with the seconds since the run started.
stamp() {
  local t0=$1 line
  while IFS= read -r line; do printf '%s %s\n' "$(echo "$(now) - $t0" | bc)" "$line"; done
}

t_start=$(now)
bash scripts/setup.sh > "$work/setup.log" 2>&1
t_setup=$(now)
# What scripts/quickstart.sh builds, as it builds it (scripts/build.sh without its apt step).
cmake -S . -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOLIOLAB_WERROR=ON \
  > "$work/build.log" 2>&1
cmake --build "$work/build" --target foliolab foliolab_docs >> "$work/build.log" 2>&1
t_build=$(now)
"$work/build/foliolab" run experiments/quickstart.yaml --results "$work/results" 2>&1 \
  | stamp "$t_build" > "$log"
t_end=$(now)

# Offsets (seconds since the run started) of the first line matching a pattern.
at() { awk -v re="$1" '$0 ~ re { print $1; exit }' "$log"; }
span() {  # name, start pattern, end pattern
  local a b
  a=$(at "$2"); b=$(at "$3")
  [ -n "$a" ] && [ -n "$b" ] && printf '%s %s\n' "$1" "$(echo "$b - $a" | bc)"
}
total=$(echo "$t_end - $t_start" | bc)
{
  printf 'apt (scripts/setup.sh) %s\n' "$(echo "$t_setup - $t_start" | bc)"
  printf 'harness build (foliolab target) %s\n' "$(echo "$t_build - $t_setup" | bc)"
  # The Debian tarball unpacked into the cache and the working tree made (before the first kernel).
  span "source unpacked, tree checked out" "accel arm64: " "building kernel .* for x86_64"
  span "kernel x86_64" "building kernel .* for x86_64" "built kernel .* for x86_64"
  span "kernel arm64" "building kernel .* for arm64" "built kernel .* for arm64"
  # Everything after the last kernel build or accelerator verdict: the guests that were left.
  last=$(awk '/built kernel |accel (x86_64|arm64): / { t = $1 } END { print t }' "$log")
  done_at=$(at "results: ")
  [ -n "$last" ] && [ -n "$done_at" ] && printf 'guests after the last build %s\n' "$(echo "$done_at - $last" | bc)"
  printf 'whole run (foliolab run) %s\n' "$(echo "$t_end - $t_build" | bc)"
} | awk -v total="$total" '{
  secs = $NF; $NF = ""; sub(/ $/, "")
  printf "%-40s %7.1f s  %5.1f %%\n", $0, secs, 100 * secs / total
}'
printf '%-40s %7.1f s  (%.1f min)\n' "total" "$total" "$(echo "$total / 60" | bc -l)"
echo "(phases overlap where foliolab runs them at once; the run's log: $log)"
awk '/^[0-9.]+ accel / { $1 = ""; print " " $0 }' "$log"

# Objects a kernel build compiled: the .o files in its build directory.
objects() { find "$1" -name '*.o' ! -name vmlinux.o ! -name '.tmp*' | wc -l; }
jobs=$(nproc)
src="$work/src"
mkdir -p "$src"
tar -xf /usr/src/linux-source-6.12.tar.xz -C "$src"
tree=$(find "$src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
declare -A cross=([x86_64]="" [arm64]=aarch64-linux-gnu-) target=([x86_64]=vmlinux [arm64]=Image)
floor=0
echo
echo "the floor: make tinyconfig of the same tree, compiler alone, -j$jobs"
for arch in x86_64 arm64; do
  o="$work/tiny-$arch"
  kmake=(make -C "$tree" O="$o" ARCH="$arch" CROSS_COMPILE="${cross[$arch]}")
  "${kmake[@]}" tinyconfig > "$work/tiny-$arch.log" 2>&1
  t0=$(now)
  "${kmake[@]}" -j"$jobs" "${target[$arch]}" >> "$work/tiny-$arch.log" 2>&1
  secs=$(echo "$(now) - $t0" | bc)
  floor=$(echo "$floor + $secs" | bc)
  printf '  %-38s %7.1f s  %5d objects\n' "tinyconfig $arch" "$secs" "$(objects "$o")"
done
printf '%-40s %7.2f  (goal: <= 2.0)\n' "first run / floor" "$(echo "$total / $floor" | bc -l)"
echo "objects of the quickstart's kernels (their build directories):"
for d in "$FOLIOLAB_CACHE"/build/*; do
  printf '  %-38s %5d objects\n' "$(basename "$d")" "$(objects "$d")"
done

# foliolab's own overhead: the same .config by plain make, the compiler command foliolab used.
meta=$(grep -l '"arch": "x86_64"' "$FOLIOLAB_CACHE"/kernels/*/kernel.json | head -n 1)
kdir=$(dirname "$meta")
o="$work/plain-x86_64"
mkdir -p "$o"
cp "$kdir/config" "$o/.config"
# ccache as foliolab runs it (kernel/kbuild.cc), with a cold cache of its own.
ccache_env=(CCACHE_DIR="$work/plain-ccache" CCACHE_BASEDIR="$tree" CCACHE_NOHASHDIR=1
  CCACHE_DEPEND=1 CCACHE_INODECACHE=1 CCACHE_NOCOMPRESS=1)
t0=$(now)
env "${ccache_env[@]}" make -C "$tree" O="$o" ARCH=x86_64 olddefconfig > "$work/plain-x86_64.log" 2>&1
env "${ccache_env[@]}" make -C "$tree" O="$o" ARCH=x86_64 CC="ccache gcc" -j"$jobs" vmlinux \
  >> "$work/plain-x86_64.log" 2>&1
plain=$(echo "$(now) - $t0" | bc)
ours=$(span "x" "building kernel .* for x86_64" "built kernel .* for x86_64" | awk '{ print $2 }')
printf '%-40s %7.1f s\n' "plain make, same .config (x86_64)" "$plain"
printf '%-40s %7.1f s\n' "foliolab's x86_64 kernel phase" "$ours"
# foliolab's own steps before make: tinyconfig, the requests, olddefconfig ("built kernel ... in
# 2m39s (configuring 6.1s)").
conf=$(sed -n 's/.*built kernel .* for x86_64 in .* (configuring \([0-9.]*\)s).*/\1/p' "$log")
printf '%-40s %7.1f s\n' "  of which configuring" "${conf:-0}"
printf '%-40s %7.2f  (goal: <= 1.05)\n' "foliolab / plain make" "$(echo "$ours / $plain" | bc -l)"
