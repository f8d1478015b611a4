#!/usr/bin/env python3
"""Predicts the rows of ../shared/data/measurements/serving_under_load.csv that InferGrid can
express and prints predicted against measured, with the signed error per row and, per split
and metric, the mean absolute error (MAE), the signed mean (bias) and the share within 15%.

Each measured configuration runs once as `infergrid bench serve` with the engine personality
of the version measured and its saved result read back. The split is fixed here, not chosen
by the result: the front end's costs were fitted on the TensorRT-LLM/Triton rows on H100 at
QPS <= 8 ("fit"); every other row is held out ("held-out"). A check, not a test.

Usage: scripts/studies/serving-under-load.py [--bin build/sim/infergrid] [--rows L001,L002] [--csv FILE]
       [-- extra infergrid flags for every run, e.g. --front-end=false]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("INFERGRID_DATA", os.path.join(ROOT, "..", "shared", "data"))

# metric name in the CSV -> (key in vLLM's saved result, scale to the CSV's unit)
METRICS = {
    "Mean TTFT": ("mean_ttft_ms", 1.0),
    "Mean ITL": ("mean_itl_ms", 1.0),
    "Output Tput": ("output_throughput", 1.0),
    "Median TTFT": ("median_ttft_ms", 1.0),
    "Median ITL": ("median_itl_ms", 1.0),
    "Median TPOT": ("median_tpot_ms", 1.0),
    "Output token throughput": ("output_throughput", 1.0),
    "Request throughput": ("request_throughput", 1.0),
}


def trtllm_triton(row):
    """TensorRT-LLM 0.14 behind Triton: Llama-3.1-8B BF16, fixed lengths, 500 requests, Poisson."""
    gpu = "H200" if row["gpu"].startswith("H200") else "H100"
    rate = row["rate_or_concurrency"].split()[-1]
    rate = "inf" if rate == "INF" else rate
    args = ["--engine=trtllm@cpp", "--model=meta-llama/Llama-3.1-8B", f"--gpu={gpu}",
            "--dataset-name=random", f"--random-input-len={row['input_len']}",
            f"--random-output-len={row['output_len']}", "--random-range-ratio=0",
            f"--num-prompts={row['num_prompts']}", f"--request-rate={rate}"]
    fit = gpu == "H100" and rate != "inf" and float(rate) <= 8
    return args, ("fit" if fit else "held-out")


def sglang_h200(row):
    """SGLang (Dec 2024) bench_serving on 4x/8x H200: random dataset with range ratio 0."""
    model = row["model"]
    if "405B" in model:
        model_id = "meta-llama/Llama-3.1-405B"
    else:
        model_id = "meta-llama/Llama-3.3-70B-Instruct" if "3.3" in model else "meta-llama/Llama-3.1-70B"
    tp = re.search(r"TP(\d+)", row["tp"]).group(1)
    if "dataset random" not in row["workload"]:
        return None, None  # ShareGPT: the conversations are not in ../shared/data
    in_len = re.search(r"max (\d+)", row["input_len"])
    out_len = re.search(r"max (\d+)", row["output_len"])
    if not in_len or not out_len:
        return None, None
    rate_text = row["rate_or_concurrency"]
    m = re.search(r"([\d.]+) req/s", rate_text)
    rate = m.group(1) if m else "inf"
    args = ["--engine=sglang@0.4.1", f"--model={model_id}", "--gpu=H200", f"--tensor-parallel-size={tp}",
            "--client=sglang", "--dataset-name=random", f"--random-input-len={in_len.group(1)}",
            f"--random-output-len={out_len.group(1)}", "--random-range-ratio=0",
            f"--num-prompts={row['num_prompts']}", f"--request-rate={rate}"]
    return args, "held-out"


def command_for(row):
    if row["engine"].startswith("TensorRT-LLM via Triton"):
        return trtllm_triton(row)
    if row["engine"].startswith("SGLang") and "bench_serving" in row["workload"] + row["source"]:
        return sglang_h200(row)
    return None, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "sim", "infergrid"))
    parser.add_argument("--csv", default=os.path.join(DATA, "measurements", "serving_under_load.csv"))
    parser.add_argument("--rows", default="", help="comma list of row ids (default: all)")
    parser.add_argument("extra", nargs="*", help="flags added to every run")
    a = parser.parse_args()
    wanted = set(filter(None, a.rows.split(",")))
    rows = [r for r in csv.DictReader(open(a.csv, newline="")) if not wanted or r["id"] in wanted]
    results = {}
    table = []
    with tempfile.TemporaryDirectory() as work:
        for row in rows:
            if row["metric"] not in METRICS:
                continue
            args, split = command_for(row)
            if args is None:
                continue
            key = tuple(args)
            if key not in results:
                out = os.path.join(work, f"r{len(results)}.json")
                cmd = [a.bin, "bench", "serve", *args, *a.extra, "--save-result", f"--result-filename={out}"]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"{row['id']}: {' '.join(cmd)}\n{p.stderr.strip()}", file=sys.stderr)
                    results[key] = None
                else:
                    results[key] = json.load(open(out))
            result = results[key]
            if result is None:
                continue
            field, scale = METRICS[row["metric"]]
            predicted = result[field] * scale
            measured = float(row["value"])
            family = "sglang" if row["engine"].startswith("SGLang") else "trtllm"
            table.append((row["id"], f"{split}", row["metric"], measured, predicted,
                          (predicted - measured) / measured, " ".join(args), family))
    print(f"{'row':5} {'split':8} {'metric':24} {'measured':>10} {'predicted':>10} {'error':>8}  command")
    for rid, split, metric, measured, predicted, err, cmd, family in table:
        print(f"{rid:5} {split:8} {metric:24} {measured:10.2f} {predicted:10.2f} {err * 100:+7.1f}%  {cmd}")
    print()
    print(f"{'engine':7} {'split':8} {'metric':12} {'rows':>4} {'MAE':>7} {'bias':>7} {'<=15%':>6}")
    groups = {}
    for rid, split, metric, measured, predicted, err, cmd, family in table:
        kind = "TTFT" if "TTFT" in metric else "ITL" if ("ITL" in metric or "TPOT" in metric) else "throughput"
        for key in ((family, split, kind), (family, split, "all"), ("all", split, "all"), ("all", "all", "all")):
            groups.setdefault(key, []).append(err)
    for (family, split, kind), errs in sorted(groups.items()):
        mae = sum(abs(e) for e in errs) / len(errs)
        bias = sum(errs) / len(errs)
        within = sum(abs(e) <= 0.15 for e in errs) / len(errs)
        print(f"{family:7} {split:8} {kind:12} {len(errs):4} {mae * 100:6.1f}% {bias * 100:+6.1f}% {within * 100:5.0f}%")


if __name__ == "__main__":
    main()
