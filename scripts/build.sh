#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh) and builds foliolab into build/ (or $FOLIOLAB_BUILD_DIR).
#   scripts/build.sh         the foliolab binary (and its man page and completion) only: Release, no
#                            debug info, the quickest build from cold (bench/first-run.sh)
#   scripts/build.sh --test  everything, with the tests and benches: RelWithDebInfo at -O1 -g1
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${FOLIOLAB_BUILD_DIR:-build}
case "${1:-}" in
  "")
    bash scripts/setup.sh
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOLIOLAB_WERROR=ON
    cmake --build "$dir" --target foliolab foliolab_docs
    ;;
  --test)
    bash scripts/setup.sh --test
    # -O1 with line tables: the tests and the binary the end-to-end tests drive run for
    # milliseconds between guests; a cold suite spends its build minutes in the compiler.
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFOLIOLAB_WERROR=ON \
      -DFOLIOLAB_TESTS=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
    cmake --build "$dir"
    ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
