#!/usr/bin/env python3
"""Where speculative decoding stops paying: TPOT and output throughput with and without it as
the request rate grows (docs/speculative.md). Llama-3-70B on 4 x H100 SXM (vLLM V1, calibrated
cost model), azure-conv synthetic requests, each configuration at each rate:
  - no speculation,
  - a Llama-3-8B draft, k = 4, acceptance 0.8 (3.36 tokens a step),
  - an EAGLE head (one decoder layer of the target), k = 4, acceptance 0.6 (2.31 tokens a step).
Prints a Markdown table. About a minute on one core.

Usage: scripts/speculative-study.py [path/to/infergrid]   (default: ./build/sim/infergrid)
Environment: REQUESTS (default 300), RATES (default "0.5,2,8,16").
"""
import json
import os
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "./build/sim/infergrid"
REQUESTS = int(os.environ.get("REQUESTS", "300"))
RATES = [float(r) for r in os.environ.get("RATES", "0.5,2,8,16").split(",")]
BASE = ["--model=llama-3-70b", "--tensor-parallel-size=4", "--quiet", "--format=json",
        "--record-wall-time=false", f"--max-requests={REQUESTS}"]
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
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    print("| rate (req/s) | speculation | mean batch | TPOT mean (ms) | TPOT p99 (ms) | TTFT p99 (ms) | "
          "output tok/s | tokens/step | KV blocks |")
    print("|---|---|---|---|---|---|---|---|---|")
    for rate in RATES:
        for name, flags in CONFIGS:
            s = simulate([f"--rate={rate}", *flags])
            spec = s.get("speculation", {})
            per_step = f"{spec['mean_tokens_per_step']:.2f}" if spec else "1"
            print(f"| {rate:g} | {name} | {s['iterations']['mean_batch_size']:.1f} | "
                  f"{s['tpot']['mean'] * 1e3:.2f} | {s['tpot']['p99'] * 1e3:.2f} | {s['ttft']['p99'] * 1e3:.1f} | "
                  f"{s['throughput']['output_tokens_per_s']:.0f} | {per_step} | {s['memory']['num_gpu_blocks']:,} |")


if __name__ == "__main__":
    main()
