#!/usr/bin/env bash
# Quick start, step 2 (and what CI runs): install what is missing, build everything, and run
# every test in three stages:
#   1. the suite, built as shipped (g++, Release, CUDA kernels where nvcc is found; warnings are
#      errors with INFERGRID_WERROR=ON, as .ci/run sets), build/, including the layer check of
#      every #include (scripts/checks/check-includes.py), the function-length check, the docs link
#      check and the docs' examples run against the binary (scripts/checks/check-doc-examples.py);
#   2. the same suite under AddressSanitizer and UndefinedBehaviorSanitizer, build-asan/
#      (scripts/ci/sanitize-test.sh);
#   3. every libFuzzer target for FUZZ_SECONDS each (default 45), build-fuzz/ (scripts/ci/fuzz.sh).
# Any failing test, sanitizer report, crash, leak or fuzzer timeout fails the script.
# `scripts/test.sh --quick` runs stage 1 only (the edit-build-test loop); JOBS=N limits the
# build and ctest parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
stage() { echo "== test stage $1 ($(date -u +%H:%M:%S))" >&2; }

stage "1/3: build and ctest"
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j"${JOBS:-$(nproc)}")
((quick)) && exit 0

stage "2/3: ctest under ASan and UBSan"
scripts/ci/sanitize-test.sh

stage "3/3: libFuzzer, ${FUZZ_SECONDS:-45} s per target"
scripts/ci/fuzz.sh
stage "done"
