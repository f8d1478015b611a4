#!/usr/bin/env bash
# Predicts every row of ../shared/data/measurements/serving_reference.csv that InferGrid can
# express and prints predicted vs measured with the signed error and the mean absolute error.
# Each row runs the command the engine's own benchmark ran, as `infergrid bench`: latency and
# throughput (vLLM's and trtllm-bench's rows) and one-batch (SGLang's decode-step rows, timed by
# sglang.bench_latency, now bench_one_batch). Nothing in the model was fitted to these rows but
# F01 (see docs/engines.md). A check, not a test.
# Usage: scripts/studies/serving-reference.sh [path/to/infergrid]   (default: ./build/sim/infergrid)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-./build/sim/infergrid}"
[[ -x "$BIN" ]] || { echo "no binary at $BIN (build with scripts/build.sh infergrid)" >&2; exit 1; }
DATA="${INFERGRID_DATA:-../shared/data}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# row ID MEASURED UNIT METRIC DESCRIPTION -- infergrid arguments...
# METRIC: avg_latency_ms (bench latency), output_tok_s / requests_per_s (bench throughput),
# median_decode_ms (bench one-batch).
rows=()
row() {
  local id="$1" measured="$2" unit="$3" metric="$4" what="$5"; shift 6
  local predicted
  case "$metric" in
    avg_latency_ms)
      "$BIN" "$@" --output-json="$WORK/r.json" > /dev/null
      predicted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["avg_latency"] * 1e3)' "$WORK/r.json") ;;
    output_tok_s|requests_per_s)
      "$BIN" "$@" --output-json="$WORK/r.json" > /dev/null
      predicted=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); m = sys.argv[2]
print(r["requests_per_second"] if m == "requests_per_s" else
      (r["total_num_tokens"] / r["elapsed_time"]) / 2)' "$WORK/r.json" "$metric") ;;
    median_decode_ms)
      rm -f "$WORK/r.jsonl"
      "$BIN" "$@" --result-filename="$WORK/r.jsonl" > /dev/null
      predicted=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["median_decode_latency"] * 1e3)' "$WORK/r.jsonl") ;;
  esac
  rows+=("$id|$what|$measured|$predicted|$unit|infergrid $*")
}

llama31=(--model=meta-llama/Llama-3.1-8B-Instruct)
row F29 997.542 ms avg_latency_ms "vLLM ~0.6.3 benchmark_latency, Llama-3.1-8B, batch 8, 32/128, H100" -- \
  bench latency --engine=vllm-v0@0.6.3 "${llama31[@]}" --batch-size=8 --input-len=32 --output-len=128
row F22 944.7 ms avg_latency_ms "vLLM V1 (2024-12) benchmark_latency, Llama-3-8B, batch 1, 32/128" -- \
  bench latency --engine=vllm-v1@0.11 --model=meta-llama/Meta-Llama-3-8B --batch-size=1 --input-len=32 --output-len=128
row F21 7.06 ms median_decode_ms "SGLang (2024-09) bench_latency decode step, Llama-3-8B, batch 1, CUDA graphs" -- \
  bench one-batch --engine=sglang --model=meta-llama/Meta-Llama-3-8B --batch-size=1 --input-len=128 --output-len=8
row F21e 9.28 ms median_decode_ms "SGLang (2024-09) bench_latency decode step, Llama-3-8B, batch 1, eager" -- \
  bench one-batch --engine=sglang --model=meta-llama/Meta-Llama-3-8B --batch-size=1 --input-len=128 --output-len=8 --disable-cuda-graph
# trtllm-bench chooses max_batch_size and max_num_tokens itself when none are given, as NVIDIA's
# runs gave none (bench/build/tuning.py, mirrored by bench throughput --engine=trtllm@...):
# F01 4,096 and 8,192, F03 640 and 2,048, F05 384 and 2,432 (docs/bench.md).
# Equal input and output lengths: output tokens/s is half the total.
trt=(bench throughput --engine=trtllm@pytorch "${llama31[@]}" --quantization=fp8 --kv-cache-dtype=fp8 --max-model-len=4096)
row F01 28312 tok/s output_tok_s "TensorRT-LLM 1.0 trtllm-bench, Llama-3.1-8B FP8, 128/128, 30,000 requests" -- \
  "${trt[@]}" --input-len=128 --output-len=128 --num-prompts=30000
row F03 15220 tok/s output_tok_s "TensorRT-LLM 1.0 trtllm-bench, Llama-3.1-8B FP8, 1000/1000, 3,000 requests" -- \
  "${trt[@]}" --input-len=1000 --output-len=1000 --num-prompts=3000
row F05 9305 tok/s output_tok_s "TensorRT-LLM 1.0 trtllm-bench, Llama-3.1-8B FP8, 2048/2048, 1,500 requests" -- \
  "${trt[@]}" --input-len=2048 --output-len=2048 --num-prompts=1500

# F30 needs ShareGPT_V3's text, which ../shared/data does not hold: its length table (whole
# conversations, Llama-2 tokenizer) stands in, so the row is shown apart, out of the error.
f30=""
if [[ -f "$DATA/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv" ]]; then
  "$BIN" bench throughput --engine=vllm-v0@0.6.3 "${llama31[@]}" --dataset-name=sharegpt \
    --dataset-path="$DATA/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv" --num-prompts=200 \
    --output-json="$WORK/f30.json" > /dev/null
  f30=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests_per_second"])' "$WORK/f30.json")
fi

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
if [[ -n "$f30" ]]; then
  python3 -c 'import sys; p = float(sys.argv[1]); print(f"\nF30 (apart: length table for ShareGPT_V3): measured 19.50 req/s, predicted {p:.2f} req/s ({100 * (p - 19.5005) / 19.5005:+.1f}%)")' "$f30"
fi
echo
echo "commands:"
printf '%s\n' "${rows[@]}" | awk -F'|' '{ print $1 ": " $6 }' | sed "s|$WORK/|<work dir>/|g"
