#!/bin/sh
# Regenerates the bundled calibration profiles (calibration/profiles/*.textproto) from the
# published measurements in ../shared/data (read in place, never copied), then rebuild so the
# binary embeds them. Each profile records this command line in its header and provenance.
#   INFERGRID=build-cost/sim/infergrid scripts/calibration/calibrate-profiles.sh
set -eu
cd "$(dirname "$0")/../.."
BIN=${INFERGRID:-build/sim/infergrid}
D=../shared/data/measurements
P=calibration/profiles
# Measured: H100 SXM (the four vidur per-op tables, fitted together; DGX NCCL all-reduce table;
# published micro-benchmarks).
H100_OPS=$D/h100/llama-2-7b_mlp_ops.csv,$D/h100/codellama-34b_mlp_ops.csv,$D/h100/internlm-20b_mlp_ops.csv,$D/h100/phi-2_mlp_ops.csv
"$BIN" calibrate fit --gpu=h100-sxm \
  --in=$H100_OPS,$D/h100/dgx_all_reduce.csv,$D/h100/microbenchmarks.csv \
  --out=$P/h100-sxm.textproto
# Measured: A100 80GB (vidur per-op table); its all-reduce tables are the H100's scaled to NVLink3.
"$BIN" calibrate fit --gpu=a100-80gb --in=$D/a100/meta-llama-3-8b_mlp_ops.csv,$P/h100-sxm.textproto \
  --out=$P/a100-80gb.textproto
# Extrapolated (datasheet ratios) until someone measures them with kernels/.
"$BIN" calibrate extrapolate --profile=$P/h100-sxm.textproto --gpu=h200-sxm --out=$P/h200-sxm.textproto
for gpu in h20 b200 gb200 h100-pcie h100-nvl; do
  "$BIN" calibrate extrapolate --profile=$P/h100-sxm.textproto --gpu=$gpu --out=$P/$gpu.textproto
done
for gpu in l40s l4 a100-40gb; do
  "$BIN" calibrate extrapolate --profile=$P/a100-80gb.textproto --gpu=$gpu --out=$P/$gpu.textproto
done
