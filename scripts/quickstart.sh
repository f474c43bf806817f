#!/usr/bin/env bash
# Fresh Debian 12 machine -> installed, built, and experiments/quickstart.yaml measured.
# Extra arguments go to `foliolab run` (e.g. --arch x86_64, --resume).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/foliolab run experiments/quickstart.yaml "$@"
