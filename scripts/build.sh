#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh) and builds foliolab into build/.
#   scripts/build.sh         the foliolab binary only (what the main job needs)
#   scripts/build.sh --test  that, plus the test suite and the benches
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "")
    bash scripts/setup.sh
    # An existing build/ configured with tests keeps them; only the binary is built here.
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFOLIOLAB_WERROR=ON
    cmake --build build --target foliolab
    ;;
  --test)
    bash scripts/setup.sh --test
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFOLIOLAB_WERROR=ON \
      -DFOLIOLAB_TESTS=ON
    cmake --build build
    ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
