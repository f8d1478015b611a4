#!/usr/bin/env bash
# Quick start, step 2: install what is missing, build everything, and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j"${JOBS:-$(nproc)}"
