#!/usr/bin/env bash
# Aggregated vs prefill/decode-disaggregated serving at equal GPU count (docs/disaggregation.md):
# Llama-3-70B in FP8 at TP2 on 8 H100 SXM (four replicas), the Azure LLM 2023 conversation trace
# replayed at several mean rates (--rate rescales its arrivals), the first REQUESTS requests.
# Prints one markdown row per (deployment, rate): TTFT and TPOT p50/p99 in ms, output tokens/s.
# Usage: scripts/studies/pd-study.sh [path/to/infergrid]   (default: ./build/sim/infergrid)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-./build/sim/infergrid}"
TRACE="${TRACE:-../shared/data/traces/splitwise_conv.csv}"
REQUESTS="${REQUESTS:-4000}"
RATES="${RATES:-4 8 12 16}"
[[ -x "$BIN" ]] || { echo "no binary at $BIN (build with scripts/build.sh infergrid)" >&2; exit 1; }
[[ -r "$TRACE" ]] || { echo "no trace at $TRACE" >&2; exit 1; }
PY=/usr/bin/python3
# One table row from a summary.json on stdin.
ROW='
import json, sys
j = json.load(sys.stdin)
name, rate = sys.argv[1], sys.argv[2]
ms = lambda s: "%.0f" % (s * 1e3)
pd = j.get("disaggregation")
transfer = "%.2f ms" % (pd["kv_transfer"]["mean"] * 1e3) if pd else "-"
label = "aggregated, 4 replicas" if name.startswith("--num-replicas") else name.replace("--pd=", "")
print("| %s | %s | %s | %s | %s | %s | %s | %.0f |" % (label, rate, ms(j["ttft"]["p50"]), ms(j["ttft"]["p99"]),
      ms(j["tpot"]["p50"]), ms(j["tpot"]["p99"]), transfer, j["throughput"]["output_tokens_per_s"]))
'
echo "| deployment | rate (req/s) | TTFT p50 | TTFT p99 | TPOT p50 | TPOT p99 | KV transfer mean | output tok/s |"
echo "|---|---|---|---|---|---|---|---|"
for rate in $RATES; do
  for deployment in "--num-replicas=4 --router=least-outstanding" "--pd=1P3D" "--pd=2P2D"; do
    # shellcheck disable=SC2086
    "$BIN" simulate --quiet --format=json --model=llama-3-70b --quantization=fp8 --gpu=h100-sxm --tensor-parallel-size=2 \
        --trace="$TRACE" --rate="$rate" --max-requests="$REQUESTS" $deployment |
      "$PY" -c "$ROW" "$deployment" "$rate"
  done
done
