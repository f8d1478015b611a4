#!/usr/bin/env bash
# Configures and builds InferGrid into ./build (Ninja; Release unless BUILD_TYPE says otherwise).
# nvcc, where present (/usr/local/cuda), also builds the CUDA calibration kernels.
# INFERGRID_WERROR=ON makes warnings errors (CI sets it; a user's build only warns).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
  -DINFERGRID_WERROR="${INFERGRID_WERROR:-OFF}" >/dev/null
ninja -C build -j"${JOBS:-$(nproc)}" "$@"
