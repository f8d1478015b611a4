#!/usr/bin/env bash
# Speed benchmark of `infergrid plan` (not a test): 24 candidate deployments of Llama-3-8B
# (H100 SXM, H200 SXM, A100 80GB x TP 1, 2, 4, 8 x KV cache auto, fp8) on the synthetic
# Azure-conversation workload (1,000 requests per run, simulate's default), SLO TTFT p99 <= 2 s
# and TPOT p99 <= 100 ms, the largest sustainable rate of each with 3 verification seeds.
# Prints the wall time, the simulations run and the best deployment.
# Usage: scripts/bench/plan-speed.sh [path/to/infergrid] [extra plan flags, e.g. --jobs=1]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-./build/sim/infergrid}"
shift || true
[[ -x "$BIN" ]] || { echo "no binary at $BIN (build with scripts/build.sh infergrid)" >&2; exit 1; }
OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
start=$(date +%s.%N)
"$BIN" plan --quiet --format=json --model=llama-3-8b --workload=azure-conv \
  --gpus=h100-sxm,h200-sxm,a100-80gb --tp-sizes=1,2,4,8 --kv-cache-dtypes=auto,fp8 \
  --slo='ttft_p99<=2s,tpot_p99<=100ms' "$@" > "$OUT"
end=$(date +%s.%N)
/usr/bin/python3 - "$OUT" "$start" "$end" "$(nproc)" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
ok = [c for c in report["candidates"] if c["status"] == "ok"]
print(f"plan: {len(report['candidates'])} candidates ({len(ok)} feasible), "
      f"{report['simulations']} simulations in {wall:.1f} s wall on {sys.argv[4]} cores "
      f"({1e3 * wall / report['simulations']:.0f} ms per simulation)")
if report.get("best_command"):
    best = report["candidates"][0]
    print(f"best: {best['label']}, {best['rate']:.2f} req/s, "
          f"{best['usd_per_million_output_tokens']:.3f} USD per million output tokens")
PY
