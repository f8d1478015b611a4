#!/usr/bin/env bash
# Predicts every row of ../shared/data/measurements/serving_reference.csv that a deterministic
# workload can express (fixed lengths, all requests submitted at once, as the engines'
# benchmark scripts send them) and prints predicted vs measured with the signed error, and the
# mean absolute error. Nothing in the model was fitted to these rows. A check, not a test.
# Usage: scripts/serving-reference.sh [path/to/infergrid]   (default: ./build/sim/infergrid)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-./build/sim/infergrid}"
[[ -x "$BIN" ]] || { echo "no binary at $BIN (build with scripts/build.sh infergrid)" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# trace NAME REQUESTS INPUT OUTPUT: fixed-length requests, all arriving at t = 0.
trace() {
  awk -v n="$2" -v i="$3" -v o="$4" 'BEGIN { print "arrival_s,input_tokens,output_tokens";
    for (k = 0; k < n; k++) print "0," i "," o }' > "$WORK/$1.csv"
  echo "$WORK/$1.csv"
}

# row ID MEASURED UNIT METRIC DESCRIPTION -- simulate flags...
# METRIC: batch_ms (last request's end-to-end latency), tpot_ms, output_tok_s.
rows=()
row() {
  local id="$1" measured="$2" unit="$3" metric="$4" what="$5"; shift 6
  local json
  json=$("$BIN" simulate --quiet --format=json --record-wall-time=false "$@")
  local predicted
  predicted=$(python3 -c '
import json, sys
s = json.loads(sys.argv[1]); m = sys.argv[2]
v = {"batch_ms": s["e2e"]["max"] * 1e3, "tpot_ms": s["tpot"]["mean"] * 1e3,
     "output_tok_s": s["throughput"]["output_tokens_per_s"]}[m]
print(f"{v:.6g}")' "$json" "$metric")
  rows+=("$id|$what|$measured|$predicted|$unit|infergrid simulate $*")
}

bs8=$(trace bs8 8 32 128)
bs1=$(trace bs1 1 32 128)
step=$(trace step 1 128 8)
f01=$(trace f01 30000 128 128)
f03=$(trace f03 3000 1000 1000)
f05=$(trace f05 1500 2048 2048)
row F29 997.542 ms batch_ms "vLLM ~0.6.3 benchmark_latency, Llama-3.1-8B, batch 8, 32/128, H100" -- \
  --engine=vllm-v0@0.6.5 --model=llama-3.1-8b --trace="$bs8"
row F22 944.7 ms batch_ms "vLLM V1 (2024-12) benchmark_latency, Llama-3-8B, batch 1, 32/128" -- \
  --engine=vllm-v1@0.11 --model=llama-3-8b --trace="$bs1"
row F21 7.06 ms tpot_ms "SGLang (2024-09) decode step, Llama-3-8B, batch 1, CUDA graphs" -- \
  --engine=sglang --disable-overlap-schedule --model=llama-3-8b --trace="$step"
row F21e 9.28 ms tpot_ms "SGLang (2024-09) decode step, Llama-3-8B, batch 1, eager" -- \
  --engine=sglang --disable-overlap-schedule --enforce-eager --model=llama-3-8b --trace="$step"
# trtllm-bench sizes the batch from the KV cache: min(requests that fit, 4096) sequences and
# min(sequences x (1 + ISL/OSL), 32768) tokens (bench/build/tuning.py); 961,088 fp8 KV tokens.
trt=(--engine=trtllm@pytorch --model=llama-3.1-8b --quantization=fp8 --kv-cache-dtype=fp8 --max-model-len=4096)
row F01 28312 tok/s output_tok_s "TensorRT-LLM 1.0 trtllm-bench, Llama-3.1-8B FP8, 128/128, 30,000 requests" -- \
  "${trt[@]}" --max-num-seqs=3754 --max-num-batched-tokens=7508 --trace="$f01"
row F03 15220 tok/s output_tok_s "TensorRT-LLM 1.0 trtllm-bench, Llama-3.1-8B FP8, 1000/1000, 3,000 requests" -- \
  "${trt[@]}" --max-num-seqs=480 --max-num-batched-tokens=960 --trace="$f03"
row F05 9305 tok/s output_tok_s "TensorRT-LLM 1.0 trtllm-bench, Llama-3.1-8B FP8, 2048/2048, 1,500 requests" -- \
  "${trt[@]}" --max-num-seqs=234 --max-num-batched-tokens=468 --trace="$f05"

printf '%s\n' "${rows[@]}" | python3 -c '
import sys
total = 0; n = 0
print("| row | what | measured | predicted | error |")
print("|---|---|---|---|---|")
for line in sys.stdin:
    rid, what, measured, predicted, unit, command = line.rstrip("\n").split("|")
    m, p = float(measured), float(predicted)
    err = (p - m) / m
    total += abs(err); n += 1
    fmt = (lambda v: f"{v:,.0f}") if unit == "tok/s" else (lambda v: f"{v:.4g}")
    print(f"| {rid} | {what} | {fmt(m)} {unit} | {fmt(p)} {unit} | {100 * err:+.1f}% |")
print(f"\nmean absolute error over {n} rows: {100 * total / n:.1f}%")
'
echo
echo "commands:"
printf '%s\n' "${rows[@]}" | awk -F'|' '{ print $1 ": " $6 }' | sed "s|$WORK/|<trace dir>/|g"
