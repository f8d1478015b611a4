#!/usr/bin/env python3
"""Where speculative decoding stops paying: TPOT and output throughput with and without it as
the batch grows (docs/speculative.md). Llama-3-70B on 4 x H100 SXM (vLLM V1, calibrated cost
model), ShareGPT-like synthetic requests from a closed-loop client keeping N in flight (so the
batch is about N), each configuration at each N:
  - no speculation,
  - a Llama-3-8B draft, k = 4, acceptance 0.8 (3.36 tokens a step),
  - an EAGLE head (one decoder layer of the target), k = 4, acceptance 0.6 (2.31 tokens a step).
Prints a Markdown table. About 5 s on one core.

Usage: scripts/studies/speculative-study.py [path/to/infergrid]   (default: ./build/sim/infergrid)
Environment: REQUESTS (default 1000), CONCURRENCY (default "1,8,32,128,256").
"""
import json
import os
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "./build/sim/infergrid"
REQUESTS = int(os.environ.get("REQUESTS", "1000"))
CONCURRENCY = [int(c) for c in os.environ.get("CONCURRENCY", "1,8,32,128,256").split(",")]
BASE = ["--model=llama-3-70b", "--tensor-parallel-size=4", "--workload=sharegpt", "--rate=1000", "--quiet",
        "--format=json", "--record-wall-time=false", f"--max-requests={REQUESTS}"]
CONFIGS = [
    ("none", []),
    ("draft llama-3-8b, k=4, a=0.8",
     ["--speculative-model=llama-3-8b", "--num-speculative-tokens=4", "--speculative-acceptance=0.8"]),
    ("eagle head, k=4, a=0.6",
     ["--speculative-method=eagle", "--num-speculative-tokens=4", "--speculative-acceptance=0.6"]),
]


def simulate(flags):
    out = subprocess.run([BIN, "simulate", *BASE, *flags], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    print("| in flight | speculation | mean batch | TPOT mean (ms) | TPOT p99 (ms) | output tok/s | "
          "tokens/step | drafting | KV blocks | preemptions |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in CONCURRENCY:
        for name, flags in CONFIGS:
            s = simulate([f"--max-concurrency={n}", *flags])
            spec = s.get("speculation", {})
            per_step = f"{spec['mean_tokens_per_step']:.2f}" if spec else "1"
            drafting = f"{spec['draft_share'] * 100:.0f}%" if spec else "-"
            print(f"| {n} | {name} | {s['iterations']['mean_batch_size']:.1f} | {s['tpot']['mean'] * 1e3:.2f} | "
                  f"{s['tpot']['p99'] * 1e3:.2f} | {s['throughput']['output_tokens_per_s']:.0f} | {per_step} | "
                  f"{drafting} | {s['memory']['num_gpu_blocks']:,} | {s['kv']['preemptions']} |")


if __name__ == "__main__":
    main()
