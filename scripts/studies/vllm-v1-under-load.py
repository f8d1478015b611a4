#!/usr/bin/env python3
"""Predicts the runs of ../shared/data/measurements/vllm_v1_under_load.csv (vLLM V1 served under a
constant request rate on H100 SXM, measured by kubernetes-sigs' inference-perf) and prints
predicted against measured per metric, with the signed error per run and, per split, the mean
absolute percentage error (MAPE) per metric. A check, not a test.

Each run is replayed as `infergrid simulate` on a trace written here: the run's request count
(rate x stage duration) sent evenly spaced at the requested rate (inference-perf's constant load
timer), every prompt of the run's measured mean prompt length and every output of its measured
mean output length, with the engine settings the run states (max_model_len 4096,
max_num_batched_tokens 2048, max_num_seqs 128) and the personality of the version most likely
measured (`--engine`, default vllm-v1@0.15.1, resolved to the newest personality at or below it).

Decode speed is compared as the source's README asks: (E2E - TTFT) / (output tokens - 1), the
time per output token a client sees, since the run's own TPOT column counts streamed chunks.

The split is fixed here, before looking at any prediction: one run per model at its lowest rate
is "fit" (VU01: Llama-2-7B TP1 at 5 req/s; VU06: Llama-2-70B TP4 at 5 req/s); the others are
"held-out". VU04 is an overload run (most requests timed out): reported apart, as whether the
simulation saturates too (completed requests per second against offered).

Usage: scripts/studies/vllm-v1-under-load.py [--bin build/sim/infergrid] [--engine vllm-v1@0.15.1]
       [--runs VU01,VU05] [-- extra infergrid flags for every run]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("INFERGRID_DATA", os.path.join(ROOT, "..", "shared", "data"))
CSV = os.path.join(DATA, "measurements", "vllm_v1_under_load.csv")

FIT = {"VU01", "VU06"}
OVERLOAD = {"VU04"}
MODELS = {"meta-llama/Llama-2-7b-hf": "llama-2-7b", "meta-llama/Llama-2-70b-hf": "llama-2-70b"}

# (label, measured column and its scale to seconds or tokens/s, simulated summary path)
METRICS = [
    ("TTFT mean", "ttft_mean_ms", 1e-3, ("ttft", "mean")),
    ("TTFT p50", "ttft_p50_ms", 1e-3, ("ttft", "p50")),
    ("TTFT p90", "ttft_p90_ms", 1e-3, ("ttft", "p90")),
    ("TTFT p99", "ttft_p99_ms", 1e-3, ("ttft", "p99")),
    ("E2E mean", "e2e_mean_s", 1.0, ("e2e", "mean")),
    ("E2E p50", "e2e_p50_s", 1.0, ("e2e", "p50")),
    ("E2E p99", "e2e_p99_s", 1.0, ("e2e", "p99")),
    ("output tok/s", "output_tok_s", 1.0, ("throughput", "output_tokens_per_s")),
]


def write_trace(row, path):
    rate = float(row["requested_rate_rps"])
    count = int(round(rate * float(row["stage_duration_s"])))
    prompt = int(round(float(row["prompt_len_mean"])))
    output = int(round(float(row["output_len_mean"])))
    with open(path, "w") as f:
        f.write("arrived_at,num_prefill_tokens,num_decode_tokens\n")
        for i in range(count):
            f.write(f"{i / rate:.6f},{prompt},{output}\n")
    return count, prompt, output


def simulate(binary, row, engine, extra):
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.csv")
        count, prompt, output = write_trace(row, trace)
        cmd = [binary, "simulate", f"--trace={trace}", f"--model={MODELS[row['model']]}", "--gpu=h100-sxm",
               f"--tensor-parallel-size={row['tp']}", f"--engine={engine}", "--max-model-len=4096",
               "--max-num-batched-tokens=2048", "--max-num-seqs=128", "--format=json",
               "--record-wall-time=false", "--quiet"] + extra
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{row['id']}: {' '.join(cmd)}\n{done.stderr}")
        return json.loads(done.stdout), count, output


def per_token(e2e_s, ttft_s, output):
    return (e2e_s - ttft_s) / max(1.0, output - 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "sim", "infergrid"))
    parser.add_argument("--engine", default="vllm-v1@0.15.1")
    parser.add_argument("--runs", default="")
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()
    wanted = set(filter(None, args.runs.split(",")))
    rows = [r for r in csv.DictReader(open(CSV)) if not wanted or r["id"] in wanted]
    errors = {}  # split -> metric -> [abs % error]
    print(f"engine {args.engine}; measured -> predicted (signed error)")
    for row in rows:
        summary, count, output = simulate(args.bin, row, args.engine, args.extra)
        split = "overload" if row["id"] in OVERLOAD else "fit" if row["id"] in FIT else "held-out"
        print(f"\n{row['id']} {row['experiment']} TP{row['tp']} {row['requested_rate_rps']} req/s "
              f"({count} requests, {row['prompt_len_mean']} in / {row['output_len_mean']} out) [{split}]")
        if split == "overload":
            offered = float(row["requested_rate_rps"])
            served = summary["throughput"]["requests_per_s"]
            print(f"  measured {float(row['requests_s']):.3f} of {offered} req/s served; predicted "
                  f"{served:.3f} req/s, TTFT mean {summary['ttft']['mean']:.1f} s "
                  f"({'saturates' if served < 0.95 * offered else 'does not saturate'})")
            continue
        measured_tpot = per_token(float(row["e2e_mean_s"]), float(row["ttft_mean_ms"]) * 1e-3,
                                  float(row["output_len_mean"]))
        predicted_tpot = per_token(summary["e2e"]["mean"], summary["ttft"]["mean"], output)
        lines = [("time/token (E2E-TTFT)", measured_tpot, predicted_tpot, 1e3, "ms")]
        for label, column, scale, (group, field) in METRICS:
            unit, show = ("ms", 1e3) if label.startswith("TTFT") else ("", 1.0)
            lines.append((label, float(row[column]) * scale, summary[group][field], show, unit))
        for label, measured, predicted, show, unit in lines:
            error = (predicted - measured) / measured * 100
            errors.setdefault(split, {}).setdefault(label, []).append(abs(error))
            print(f"  {label:22s} {measured * show:10.3f} -> {predicted * show:10.3f} {unit:2s} ({error:+6.1f}%)")
    for split in ("fit", "held-out"):
        if split not in errors:
            continue
        print(f"\nMAPE, {split} ({len(next(iter(errors[split].values())))} runs):")
        for label, values in errors[split].items():
            print(f"  {label:22s} {sum(values) / len(values):6.1f}%  (max {max(values):.1f}%)")


if __name__ == "__main__":
    main()
