#!/usr/bin/env bash
# Refactoring check (not a test): runs two `infergrid` binaries on the same set of commands and
# reports any output that differs byte for byte. Covers every file `simulate --out` writes for
# the configurations of scripts/bench/bench-simulate.sh (whole Azure conversation trace: calibrated,
# --cost-stride=16, roofline; the 1M-request runs with --outputs=summary) and deployment
# variants (70B TP4 x 2 replicas, Mixtral TP2 on mooncake-conv, fp8 KV with sarathi, SGLang with
# swap, TensorRT-LLM's guaranteed_no_evict, gpt-oss's hybrid KV groups, the schedulers, engine
# memory plans, fleets of 4 and 16 replicas under each router, disaggregation, a closed loop,
# noise and prefix caching with replicas), plus the stdout of the accounting, trace and calibration commands.
# summary.json is compared with --record-wall-time=false (wall time is the one
# non-deterministic field).
# Usage: scripts/checks/compare-outputs.sh OLD_BIN NEW_BIN [WORKDIR]   (FULL=1 adds the 1M runs;
# ONLY=REGEX runs only the checks whose name matches, e.g. ONLY=fleet)
# Needs ../shared/data (the Azure conversation trace).
set -euo pipefail
cd "$(dirname "$0")/../.."
OLD="$(realpath "${1:?old binary}")"
NEW="$(realpath "${2:?new binary}")"
WORK="${3:-$(mktemp -d)}"
TRACE="$(realpath ../shared/data/traces/splitwise_conv.csv)"
mkdir -p "$WORK"
fail=0
n=0

# Runs one command line with both binaries in folders of their own and diffs stdout, stderr,
# the exit code and the files written; @OUT@ in an argument stands for the output folder.
check() {
  local name="$1"; shift
  if [[ -n "${ONLY:-}" && ! "$name" =~ ${ONLY} ]]; then return 0; fi
  n=$((n + 1))
  local o="$WORK/old/$name" w="$WORK/new/$name"
  rm -rf "$o" "$w"; mkdir -p "$o" "$w"
  local args=("$@")
  # Relative output folders, so that the "wrote files/{...}" line is the same for both.
  (cd "$o" && "$OLD" "${args[@]//@OUT@/files}" >stdout 2>stderr; echo $? >rc) || true
  (cd "$w" && "$NEW" "${args[@]//@OUT@/files}" >stdout 2>stderr; echo $? >rc) || true
  if ! diff -r -q "$o" "$w" >/dev/null; then
    echo "DIFFERS: $name: infergrid ${args[*]}"
    diff -r -q "$o" "$w" | head -5 || true
    fail=1
  fi
}

sim=(simulate --quiet --record-wall-time=false)
check azure-calibrated "${sim[@]}" --trace="$TRACE" --out=@OUT@
check azure-stride16 "${sim[@]}" --trace="$TRACE" --cost-stride=16 --out=@OUT@
check azure-roofline "${sim[@]}" --trace="$TRACE" --cost-model=roofline --out=@OUT@
check default "${sim[@]}" --out=@OUT@
check default-json "${sim[@]}" --format=json
check 70b-tp4x2 "${sim[@]}" --model=llama-3-70b --tensor-parallel-size=4 --num-replicas=2 --router=least-kv --rate=8 --max-requests=400 --out=@OUT@
check mixtral-mooncake "${sim[@]}" --model=mixtral-8x7b --tensor-parallel-size=2 --workload=mooncake-conv --max-requests=300 --out=@OUT@
check fp8-sarathi "${sim[@]}" --scheduler=sarathi --chunk-size=512 --kv-cache-dtype=fp8 --slo-ttft=0.5 --slo-tpot=0.05 --out=@OUT@
check sglang-swap "${sim[@]}" --engine=sglang --preemption-mode=swap --rate=30 --max-requests=500 --enforce-eager --out=@OUT@
check trtllm-noevict "${sim[@]}" --engine=trtllm --rate=40 --max-requests=600 --out=@OUT@
check gpt-oss-hybrid "${sim[@]}" --model=gpt-oss-20b --rate=20 --max-requests=300 --out=@OUT@
check orca-static "${sim[@]}" --scheduler=orca --router=least-outstanding --num-replicas=2 --max-requests=200
check static "${sim[@]}" --scheduler=static --max-num-seqs=16 --max-requests=100
check compare compare --a=--scheduler=vllm --b=--scheduler=sarathi --max-requests=100 --replications=2
check compare-kv compare "--a=--kv-cache-dtype=fp16" "--b=--kv-cache-dtype=fp8" --max-requests=100
check memory memory --model=llama-3-8b --gpu=h100-sxm --params=nominal --context=8192
check memory-json memory --model=llama-3-70b --gpu=a100-80gb --kv-cache-dtype=fp8 --format=json
check memory-engine memory --engine=vllm-v1@0.19 --model=llama-3.1-8b --max-model-len=8192
check memory-sglang memory --engine=sglang --model=llama-3-70b --tensor-parallel-size=4 --format=json
check memory-trt memory --engine=trtllm --model=qwen2.5-7b
check roofline-decode roofline --model=llama-3-8b --gpu=h100-sxm --params=nominal --phase=decode --context=8192
check roofline-prefill roofline --model=mixtral-8x7b --gpu=h200-sxm --phase=prefill --format=json
check train train --model=llama-3-70b --tokens=15e12 --num-gpus=1024 --gpu=h100-sxm --format=json
check vector-index vector-index --vectors=10000000 --dim=128 --hnsw-m=32
check trace-stats trace stats --trace="$TRACE"
D=$(realpath ../shared/data/measurements)
check calibrate-report calibrate report --profile="$PWD/calibration/profiles/h100-sxm.textproto" --measured="$D/h100/phi-2_mlp_ops.csv"
check calibrate-fit calibrate fit --gpu=a100-80gb --in="$D/a100/meta-llama-3-8b_mlp_ops.csv,$PWD/calibration/profiles/h100-sxm.textproto" --out=@OUT@.textproto
check calibrate-extrapolate calibrate extrapolate --profile="$PWD/calibration/profiles/h100-sxm.textproto" --gpu=h200-sxm --out=@OUT@.textproto
check bench-latency bench latency --model=llama-3-8b -tp 1 --batch-size=4 --input-len=64 --output-len=32 --num-iters=2
check bench-throughput bench throughput --dataset-name=random --input-len=256 --output-len=64 --num-prompts=50 --max_num_tokens=4096
check bench-serve bench serve --dataset-name=random --random-input-len=256 --random-output-len=64 --num-prompts=60 --request-rate=8 --concurrency=16 --result-date=20261205-000000
check bench-one-batch bench one-batch --model-path=llama-3-8b --batch-size 1 8 --input-len 128 256 --output-len 8
check plan plan --slo=ttft_p99\<=2s --gpus=h100-sxm --tp-sizes=1 --max-requests=200 --verify-seeds=1 --max-rate=50 --jobs=1 --quiet
# Fleets (issue 47): replicas advancing on their own between the moments the router, a KV
# transfer or a closed-loop client needs their state must give the same bytes as replicas cut
# at every arrival anywhere.
fleet=("${sim[@]}" --workload=azure-conv --max-requests=3000 --out=@OUT@)
for r in 4 16; do
  for router in round-robin least-outstanding least-kv; do
    check "fleet-$r-$router" "${fleet[@]}" --num-replicas=$r --rate=$((5 * r)) --router=$router
  done
done
check fleet-4-rr-frontend "${fleet[@]}" --num-replicas=4 --rate=20 --front-end=true
check fleet-4-lo-frontend "${fleet[@]}" --num-replicas=4 --rate=20 --router=least-outstanding --front-end=true
check fleet-4-rr-nocoalesce "${fleet[@]}" --num-replicas=4 --rate=20 --coalesce=false
check fleet-pd-1p3d "${fleet[@]}" --pd=1P3D --rate=20
check fleet-pd-2p2d "${fleet[@]}" --pd=2P2D --rate=20 --router=least-outstanding
check fleet-closed-loop "${fleet[@]}" --num-replicas=4 --rate=20 --max-concurrency=32
check fleet-noise "${fleet[@]}" --num-replicas=4 --rate=20 --noise=true
check fleet-noise-lkv "${fleet[@]}" --num-replicas=4 --rate=20 --noise=true --router=least-kv
check fleet-iteration-noise "${fleet[@]}" --num-replicas=4 --rate=20 --iteration-noise=0.05 --send-jitter=0
check fleet-prefix-mooncake "${sim[@]}" --workload=mooncake-conv --max-requests=1500 --num-replicas=4 --rate=8 --enable-prefix-caching=true --out=@OUT@
check fleet-prefix-mooncake-lkv "${sim[@]}" --workload=mooncake-conv --max-requests=1500 --num-replicas=4 --rate=8 --enable-prefix-caching=true --router=least-kv --out=@OUT@
check fleet-tp2-sarathi "${fleet[@]}" --num-replicas=8 --rate=40 --tensor-parallel-size=2 --scheduler=sarathi --chunk-size=512
check fleet-multistep "${fleet[@]}" --num-replicas=4 --rate=20 --engine=vllm-v0@0.6.5 --num-scheduler-steps=8
check bad-flag simulate --scheduler=nope
check bad-model memory --model=no-such
check bad-int memory --tensor-parallel-size=abc
check bad-bool simulate --enable-prefix-caching=maybe
check bad-double simulate --rate=fast
check help simulate --help
if [[ "${FULL:-0}" == 1 ]]; then
  rep="$WORK/repeated.csv"
  awk -F, 'NR==1{h=$0;next}{t[n]=$1;p[n]=$2;d[n]=$3;n++}END{print h;per=t[n-1]+t[n-1]/(n-1);w=0;for(k=0;w<1000000;k++)for(i=0;i<n&&w<1000000;i++){printf "%.6f,%d,%d\n",t[i]+k*per,p[i],d[i];w++}}' "$TRACE" >"$rep"
  check 1m-roofline "${sim[@]}" --trace="$rep" --cost-model=roofline --out=@OUT@ --outputs=summary
  check 1m-stride16 "${sim[@]}" --trace="$rep" --cost-stride=16 --out=@OUT@ --outputs=summary
fi
if ((fail)); then echo "outputs differ (see above); both kept under $WORK"; exit 1; fi
echo "all $n command outputs identical ($WORK)"
