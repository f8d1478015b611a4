#!/usr/bin/env python3
"""Predicts the runs of ../shared/data/measurements/moe_offline_hopper.csv (trtllm-bench throughput,
TensorRT-LLM 1.0 PyTorch backend: Llama-4-Scout FP8 on 4 H100/H200 and Qwen3-235B-A22B FP8 on 8
H100/H200, attention data parallelism with expert parallelism, uniform lengths, every request
queued at once) and prints predicted against measured output tokens/s with the signed error and,
per split, the mean absolute percentage error (MAPE). A check, not a test.

Each run is `infergrid bench throughput --engine=trtllm@pytorch` with the run's model, GPU, FP8
weights and KV cache, its input and output lengths and request count, the sequence limit
trtllm-bench takes from the dataset (input + output), and the parallelism of the source's MoE
command: `--tp N --ep N` with `enable_attention_dp` (`--enable-attention-dp`). trtllm-bench
chooses its own batch and token limits (no --max_batch_size / --max_num_tokens were given).

The split is fixed here, before looking at any prediction: the rows of three length pairs are
"fit" (128/2048, 1000/1000 and 5000/500: a decode-bound, a balanced and a prefill-bound pair, on
both models and both GPUs); the other seven pairs are "held-out".

Usage: scripts/studies/moe-offline-hopper.py [--bin build/sim/infergrid] [--runs MO01,MO19]
       [--parallel dep|tp] [-- extra infergrid flags for every run]
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
CSV = os.path.join(DATA, "measurements", "moe_offline_hopper.csv")

FIT_LENGTHS = {(128, 2048), (1000, 1000), (5000, 500)}
MODELS = {"Llama 4 Scout": "llama-4-scout", "Qwen3-235B-A22B": "qwen3-235b-a22b"}
GPUS = {"H100 SXM 80GB": "h100-sxm", "H200 SXM 141GB": "h200-sxm"}


def predict(binary, row, parallel, extra):
    gpus = int(row["parallel"].removeprefix("TP"))
    isl, osl = int(row["isl"]), int(row["osl"])
    cmd = [binary, "bench", "throughput", "--engine=trtllm@pytorch", f"--model={MODELS[row['model']]}",
           f"--gpu={GPUS[row['gpu']]}", f"--tensor-parallel-size={gpus}", "--quantization=fp8",
           "--kv-cache-dtype=fp8", f"--input-len={isl}", f"--output-len={osl}",
           f"--num-prompts={row['num_requests']}", f"--max-model-len={isl + osl}"]
    if parallel == "dep":
        cmd += ["--enable-attention-dp", "--enable-expert-parallel"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        done = subprocess.run(cmd + extra + [f"--output-json={out}"], capture_output=True, text=True)
        if done.returncode != 0:
            return None, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
        result = json.load(open(out))
    output_tokens = int(row["num_requests"]) * osl
    return output_tokens / result["elapsed_time"], None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "sim", "infergrid"))
    parser.add_argument("--runs", default="")
    parser.add_argument("--parallel", default="dep", choices=["dep", "tp"])
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()
    wanted = set(filter(None, args.runs.split(",")))
    rows = [r for r in csv.DictReader(open(CSV)) if not wanted or r["id"] in wanted]
    errors = {}
    print(f"parallelism: {args.parallel}; measured -> predicted output tok/s (signed error)")
    for row in rows:
        split = "fit" if (int(row["isl"]), int(row["osl"])) in FIT_LENGTHS else "held-out"
        measured = float(row["output_tok_s"])
        predicted, failure = predict(args.bin, row, args.parallel, args.extra)
        what = f"{row['id']} {row['model']:16s} {row['gpu'][:4]} {row['parallel']} {row['isl']:>5}/{row['osl']:<5}"
        if predicted is None:
            print(f"{what} [{split}] {measured:9.0f} -> does not run: {failure}")
            errors.setdefault(split, []).append(100.0)
            continue
        error = (predicted - measured) / measured * 100
        errors.setdefault(split, []).append(abs(error))
        print(f"{what} [{split:8s}] {measured:9.0f} -> {predicted:9.0f} ({error:+6.1f}%)")
    for split in ("fit", "held-out"):
        if split in errors:
            values = errors[split]
            within = sum(v <= 15 for v in values)
            print(f"MAPE {split:8s} ({len(values)} runs): {sum(values) / len(values):5.1f}%  "
                  f"(max {max(values):.1f}%, {within} of {len(values)} within 15%)")


if __name__ == "__main__":
    main()
