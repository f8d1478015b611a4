#!/usr/bin/env bash
# Installs the Debian 12 packages InferGrid builds with, if any is missing (needs root).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config
          libsimgrid-dev libboost-graph-dev libprotobuf-dev protobuf-compiler libabsl-dev
          libzstd-dev zstd libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev
          python3   # scripts/checks/check-includes.py and the docs link check
          clang-format  # scripts/checks/check-format.sh: the sources as .clang-format says
          python3-numpy  # tests/bench_vllm_check.py: bench serve's golden recomputed as vLLM computes it
          python3-dev python3-pybind11 python3-pytest python3-pandas  # `import infergrid` and its tests
          chromium   # the HTML report's browser test (tests/report_browser_test.cc)
          slurmctld slurmd slurm-client munge)  # scripts/ci/slurm-sweep-test.sh: a one-node Slurm cluster
# The HTML report's charting libraries come from npm at build time (sim/app/report/web): npm ships
# with nodejs from most sources; Debian's own packages split them.
if ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
# scripts/ci/fuzz.sh also needs clang and its sanitizer and libFuzzer runtimes.
if [[ "${INFERGRID_FUZZ_DEPS:-0}" == 1 ]]; then packages+=(clang-14 libclang-rt-14-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
