#!/usr/bin/env bash
# Speed benchmark of `infergrid simulate` (not a test): Llama-3-8B on one H100 SXM with the
# default engine (vLLM V1), on
#   - the whole Azure LLM 2023 conversation trace (19,366 requests, about an hour), without
#     output files, with each output file of --out alone and with all of them (the default
#     timeline.pftrace, the JSON timeline, zstd tables), and
#   - the same trace repeated back to back until 1,000,000 requests (about 50 hours simulated),
# with the calibrated cost model (the default; exact, and with --cost-stride=16) and the
# roofline model. FULL=1 adds the 1M run with the calibrated model priced at every iteration.
# Prints wall time, peak resident memory (/usr/bin/time -v), events/s and requests/s of each
# run. REPEAT=N runs each N times and reports the fastest (the machine's noise).
# FLEET=1 adds fleets (issue 47): the synthetic azure-conv workload at 5 req/s per replica on
# 1, 16 and 64 replicas (round-robin; FLEET_REQUESTS requests, default 200,000), each fleet also
# with --fleet-run-ahead=false (runs cut at every arrival anywhere), then 1,024 replicas with
# FLEET_BIG_REQUESTS (default 1,000,000; 0 leaves it out); FLEET=only runs just those (no trace
# needed).
# Usage: scripts/bench/bench-simulate.sh [path/to/infergrid]   (default: ./build/sim/infergrid)
# Needs ../shared/data/traces/splitwise_conv.csv (the Azure conversation trace, re-based).

set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-./build/sim/infergrid}"
TRACE="${TRACE:-../shared/data/traces/splitwise_conv.csv}"
REQUESTS="${REQUESTS:-1000000}"
[[ -x "$BIN" ]] || { echo "no binary at $BIN (build with scripts/build.sh infergrid)" >&2; exit 1; }
[[ "${FLEET:-0}" == only || -r "$TRACE" ]] || { echo "no trace at $TRACE" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
WORK="$(mktemp -d)"
RUNS=0
trap 'rm -rf "$WORK"' EXIT

# Fleets: the same per-replica load on 1, 16 and 64 replicas, each replica running ahead to its
# own arrivals (the default) and cut at every arrival anywhere (--fleet-run-ahead=false); then
# 1,024 replicas.
fleets() {
  local requests="${FLEET_REQUESTS:-200000}"
  for n in 1 16 64; do
    local fleet=(--workload=azure-conv --rate=$((5 * n)) --num-replicas=$n --max-requests="$requests")
    run "azure-conv synthetic, $n replicas at $((5 * n)) req/s, $requests requests" "${fleet[@]}"
    if ((n > 1)); then
      run "azure-conv synthetic, $n replicas at $((5 * n)) req/s, $requests requests, --fleet-run-ahead=false" \
        "${fleet[@]}" --fleet-run-ahead=false
    fi
  done
  local big="${FLEET_BIG_REQUESTS:-1000000}"
  if ((big > 0)); then
    run "azure-conv synthetic, 1024 replicas at 5120 req/s, $big requests" \
      --workload=azure-conv --rate=5120 --num-replicas=1024 --max-requests="$big"
  fi
}

# The trace repeated: copy k starts where copy k-1 ended plus one mean inter-arrival gap.
[[ "${FLEET:-0}" == only ]] || awk -F, -v want="$REQUESTS" '
  BEGIN { n = 0; written = 0 }
  NR == 1 { header = $0; next }
  { t[n] = $1; p[n] = $2; d[n] = $3; n++ }
  END {
    print header
    period = t[n - 1] + t[n - 1] / (n - 1)
    for (k = 0; written < want; k++)
      for (i = 0; i < n && written < want; i++) {
        printf "%.6f,%d,%d\n", t[i] + k * period, p[i], d[i]; written++
      }
  }' "$TRACE" > "$WORK/repeated.csv"

run() {
  local name="$1"; shift
  local file="$WORK/run$((++RUNS))"
  local best=""
  for ((i = 0; i < ${REPEAT:-1}; i++)); do
    # Every repeat writes into a fresh folder, removed right after: replacing the last repeat's
    # files would time the file system's writeback of them (ext4 flushes a file renamed over
    # another at once), not this run.
    rm -rf "$WORK/out"
    /usr/bin/time -v "$BIN" simulate --quiet --format=json "$@" > "$file.json" 2> "$file.time"
    rm -rf "$WORK/out"
    local wall
    wall=$(python3 -c '
import re, sys
t = open(sys.argv[1]).read()
w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
print(sum(float(v) * 60 ** i for i, v in enumerate(reversed(w.split(":")))))' "$file.time")
    if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(not $wall < $best)"; then
      best="$wall"; cp "$file.json" "$file.best.json"; cp "$file.time" "$file.best.time"
    fi
  done
  python3 - "$name" "$file.best.json" "$file.best.time" <<'PY'
import json, re, sys
name, summary, timing = sys.argv[1:]
s = json.load(open(summary))
t = open(timing).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
parts = [float(x) for x in wall.split(":")]
wall_s = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
user_s = float(re.search(r"User time \(seconds\): (\S+)", t).group(1))
perf = s["performance"]
print(f"{name}: {s['requests']:,} requests, {s['simulated_duration_s'] / 3600:.1f} h simulated, "
      f"{s['iterations']['iterations']:,} iterations ({s['cost_model_calls']:,} priced by the model), "
      f"{s['events']:,} events, {s['simgrid_activities']:,} SimGrid activities")
print(f"  process wall {wall_s:.2f} s, user CPU {user_s:.2f} s, peak RSS {rss_kb / 1024:.0f} MiB; engine run {perf['wall_time_s']:.2f} s: "
      f"{perf['events_per_s']:,.0f} events/s, {perf['requests_per_s']:,.0f} requests/s")
PY
}

echo "infergrid simulate speed ($(nproc) CPUs, $(uname -m)); $BIN"
if [[ "${FLEET:-0}" == only ]]; then
  fleets
  exit 0
fi
x="x$(( (REQUESTS + 19365) / 19366 ))"
run "azure-conv, calibrated" --trace="$TRACE"
# The output files: each alone, then all four (default timeline.pftrace), the JSON timeline and
# zstd tables, each into a fresh folder (see run()).
for outputs in summary summary,requests summary,iterations summary,timeline \
               summary,requests,iterations,timeline; do
  run "azure-conv, calibrated, --outputs=$outputs" --trace="$TRACE" --out="$WORK/out" --outputs="$outputs"
done
run "azure-conv, calibrated, every output, --timeline-format=json" --trace="$TRACE" --out="$WORK/out" --timeline-format=json
run "azure-conv, calibrated, every output, --compress=zstd" --trace="$TRACE" --out="$WORK/out" --compress=zstd
run "azure-conv, calibrated, --cost-stride=16" --trace="$TRACE" --cost-stride=16
run "azure-conv, roofline" --trace="$TRACE" --cost-model=roofline
run "azure-conv $x, roofline" --trace="$WORK/repeated.csv" --cost-model=roofline
run "azure-conv $x, calibrated, --cost-stride=16" --trace="$WORK/repeated.csv" --cost-stride=16
if [[ "${FULL:-0}" == 1 ]]; then
  run "azure-conv $x, calibrated" --trace="$WORK/repeated.csv"
fi
if [[ "${FLEET:-0}" == 1 ]]; then
  fleets
fi
