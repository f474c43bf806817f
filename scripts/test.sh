#!/usr/bin/env bash
# Fresh Debian 12 machine -> installed, built, format-checked and every test passed: unit tests
# (milliseconds) first, then end-to-end tests that build the kernels once (cached in
# ${FOLIOLAB_CACHE:-~/.cache/foliolab}) and boot real QEMU guests. Before the tests: the format
# (scripts/check-format.sh), the include rules (scripts/check-includes.py), the house rules
# (scripts/check-house.py: module circles, function and file lengths) and the manual's shape
# (scripts/check-docs.py), each check's self-test first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh --test
bash scripts/check-format.sh
python3 scripts/check-includes.py
python3 scripts/check-house.py --self-test
python3 scripts/check-house.py
python3 scripts/check-docs.py --self-test
python3 scripts/check-docs.py
# Unit tests two at a time; the end-to-end tests (RUN_SERIAL) each alone.
ctest --test-dir build --output-on-failure -j2
