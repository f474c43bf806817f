#!/usr/bin/env bash
# Installs dependencies (scripts/setup.sh) and builds foliolab into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFOLIOLAB_WERROR=ON
cmake --build build
