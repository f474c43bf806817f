#!/usr/bin/env bash
# Fails when a C or C++ file under harness/, images/, workloads/ or bench/ differs from what
# clang-format (.clang-format: Google base, 100 columns) makes of it. scripts/setup.sh --test
# installs clang-format. To fix: bash scripts/check-format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'harness/*.cc' 'harness/*.h' 'images/*.c' 'images/*.h' \
  'workloads/*.c' 'workloads/*.h' 'bench/*.cc')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
else
  clang-format --dry-run -Werror "${files[@]}"
fi
