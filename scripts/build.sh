#!/usr/bin/env bash
# Configures and builds InferGrid into ./build (Release with debug info, Ninja).
# nvcc, where present (/usr/local/cuda), also builds the CUDA calibration kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"${JOBS:-$(nproc)}" "$@"
