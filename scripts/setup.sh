#!/usr/bin/env bash
# Installs what foliolab needs on Debian 12, non-interactively and idempotently.
#   scripts/setup.sh         the main job: build the harness, build and boot kernels (quickstart)
#   scripts/setup.sh --test  that, plus what only the tests and benches need (scripts/test.sh)
# The packages and why each is needed: scripts/packages.txt (sections build, run, recommends,
# test; the .deb's Depends and `foliolab doctor` read the same list).
set -euo pipefail
list="$(dirname "$0")/packages.txt"
sections=(build run recommends)
case "${1:-}" in
  "") ;;
  --test) sections+=(test) ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
# The first word of each line of the given sections, comments and blank lines skipped.
packages_of() {
  local want=" $* " section="" line
  while IFS= read -r line; do
    line=${line%%#*}
    read -r -a words <<<"$line"
    ((${#words[@]})) || continue
    if [[ ${words[0]} =~ ^\[(.*)\]$ ]]; then
      section=${BASH_REMATCH[1]}
    elif [[ $want == *" $section "* ]]; then
      echo "${words[0]}"
    fi
  done <"$list"
}
mapfile -t PKGS < <(packages_of "${sections[@]}")
((${#PKGS[@]})) || { echo "$0: no packages read from $list" >&2; exit 3; }
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
