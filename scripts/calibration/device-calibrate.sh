#!/usr/bin/env bash
# Builds and runs the GPU calibration sweep in one go on the lent GPU machine (the `device`
# tool), writing under $OUT:
#   measurements-<gpu>.textproto  the Measurements textproto (calibration/measurements.proto)
#   calibrate-log.txt             build and sweep output
#   nvidia-smi-q.txt              `nvidia-smi -q` before the sweep (clocks, power, ECC, driver)
#   sass-summary.txt              tensor-core and wide-load instruction counts of the binary
#
# That machine has nvcc, CMake and ninja but none of InferGrid's Debian dependencies and no
# package registry, so this builds kernels/ as a project of its own (the binary needs only the
# CUDA toolkit and cuBLASLt). It changes no GPU setting (no clocks, power or reset).
#
# Device call (from the repository root), about 4-6 minutes with the machine's start:
#   run: bash scripts/calibration/device-calibrate.sh      timeout_s: 540
# Environment: BUDGET_SECONDS (sweep budget, default 240), GPU_TAG (file name part, default
# h200), QUICK=1 (the reduced sweep), JOBS (build parallelism).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
BUDGET=${BUDGET_SECONDS:-240}
TAG=${GPU_TAG:-h200}
BUILD=${BUILD_DIR:-/tmp/infergrid-kernels-build}
LOG="$OUT/calibrate-log.txt"
exec > >(tee -a "$LOG") 2>&1
started=$(date +%s)
echo "== $(date -u +%FT%TZ) device-calibrate on $(hostname)"

nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1 || echo "nvidia-smi -q failed"
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,power.limit,temperature.gpu \
  --format=csv 2>&1 || true

NVCC=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
echo "nvcc: $NVCC ($("$NVCC" --version | tail -1))"
cmake_args=(-S kernels -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_CUDA_COMPILER="$NVCC" -DINFERGRID_WERROR=OFF)
# cuBLASLt: the toolkit's if it has one, else the nvidia-cublas wheel that PyTorch carries.
cuda_root=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
if ! ls "$cuda_root"/lib64/libcublasLt.so* "$cuda_root"/targets/*/lib/libcublasLt.so* >/dev/null 2>&1; then
  wheel=$(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__))' 2>/dev/null ||
          python3 -c 'import nvidia.cublas, os; print(list(nvidia.cublas.__path__)[0])' 2>/dev/null || true)
  lib=$(ls "$wheel"/lib/libcublasLt.so* 2>/dev/null | head -1)
  if [[ -n "$lib" ]]; then
    echo "cuBLASLt from the Python wheel: $lib"
    cmake_args+=(-DINFERGRID_CUBLASLT_LIBRARY="$lib" -DINFERGRID_CUBLASLT_INCLUDE_DIR="$wheel/include")
    export LD_LIBRARY_PATH="$wheel/lib:${LD_LIBRARY_PATH:-}"
  else
    echo "no libcublasLt found beside $NVCC or in a Python wheel" >&2
    exit 1
  fi
fi
cmake "${cmake_args[@]}" >/dev/null || { echo "cmake failed"; exit 1; }
ninja -C "$BUILD" -j"${JOBS:-$(nproc)}" infergrid-calibrate || { echo "build failed"; exit 1; }
BIN="$BUILD/infergrid-calibrate"
echo "== built in $(( $(date +%s) - started )) s"

# What the compiler emitted (no device time): HMMA = tensor-core MMA (prefill), 128-bit loads.
if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-sass "$BIN" 2>/dev/null | grep -oE 'HMMA\.[0-9A-Z.]+|LDG\.E\.(64|128)[.A-Z]*|LDS[M]?\.[0-9A-Z.]+' |
    sort | uniq -c | sort -rn >"$OUT/sass-summary.txt" || true
fi

args=(--out="$OUT/measurements-$TAG.textproto" --budget-seconds="$BUDGET")
[[ "${QUICK:-0}" == 1 ]] && args+=(--quick)
# A hard stop well past the budget, so a hang still leaves the log and nvidia-smi output.
timeout $(( BUDGET + 150 )) "$BIN" "${args[@]}"
rc=$?
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 || true
echo "== infergrid-calibrate exit $rc after $(( $(date +%s) - started )) s"
ls -l "$OUT"
exit $rc
