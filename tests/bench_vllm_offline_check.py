#!/usr/bin/env python3
"""Recomputes `vllm bench latency` and `vllm bench throughput` results from what they are made of,
with NumPy and Python's own formatting, following vLLM's scripts (vllm/benchmarks/latency.py:
np.mean, np.std and np.percentile over the per-iteration latencies, printed with f-strings;
vllm/benchmarks/throughput.py: requests and tokens over the elapsed time, printed with :.2f),
and checks that InferGrid's saved JSON and report agree with them to the last digit: a second
check of the goldens that does not come from the binary that wrote them.

Usage: tests/bench_vllm_offline_check.py latency RESULT.json REPORT.txt
       tests/bench_vllm_offline_check.py throughput RESULT.json REPORT.txt PROMPT_TOKENS
REPORT.txt is `infergrid bench ...` stdout (its first line, InferGrid's header, is skipped).
Exit 0: identical; 1: a difference, printed.
"""
import json
import sys

import numpy as np


def latency_lines(r):
    latencies = np.array(r["latencies"])
    percentages = [int(p) for p in r["percentiles"]]
    percentiles = np.percentile(latencies, percentages)
    expected = {"avg_latency": np.mean(latencies), "std_latency": np.std(latencies),
                "percentiles": {str(p): v for p, v in zip(percentages, percentiles)}}
    errors = []
    for key in ("avg_latency", "std_latency"):
        if float(expected[key]) != r[key]:
            errors.append(f"{key}: saved {r[key]!r}, recomputed {float(expected[key])!r}")
    for p, v in expected["percentiles"].items():
        if float(v) != r["percentiles"][p]:
            errors.append(f"p{p}: saved {r['percentiles'][p]!r}, recomputed {float(v)!r}")
    lines = [f"Avg latency: {np.mean(latencies)} seconds", f"Std latency: {np.std(latencies)} seconds"]
    lines += [f"{p}% percentile latency: {v} seconds" for p, v in zip(percentages, percentiles)]
    return lines, errors


def throughput_lines(r, prompt_tokens):
    elapsed = r["elapsed_time"]
    output_tokens = r["total_num_tokens"] - prompt_tokens
    errors = []
    for key, value in (("requests_per_second", r["num_requests"] / elapsed),
                       ("tokens_per_second", r["total_num_tokens"] / elapsed)):
        if value != r[key]:
            errors.append(f"{key}: saved {r[key]!r}, recomputed {value!r}")
    lines = [f"Throughput: {r['num_requests'] / elapsed:.2f} requests/s, "
             f"{r['total_num_tokens'] / elapsed:.2f} total tokens/s, "
             f"{output_tokens / elapsed:.2f} output tokens/s",
             f"Total num prompt tokens:  {prompt_tokens}",
             f"Total num output tokens:  {output_tokens}"]
    return lines, errors


def main():
    kind, result_path, report_path = sys.argv[1], sys.argv[2], sys.argv[3]
    r = json.load(open(result_path))
    if kind == "latency":
        lines, errors = latency_lines(r)
    elif kind == "throughput":
        lines, errors = throughput_lines(r, int(sys.argv[4]))
    else:
        print(f"unknown kind {kind!r}")
        return 1
    report = open(report_path).read().splitlines()[1:]
    if report != lines:
        errors.append("report differs:\n  got:      " + "\n            ".join(report) +
                      "\n  expected: " + "\n            ".join(lines))
    for error in errors:
        print(error)
    if not errors:
        print(f"{kind}: {result_path} and {report_path} match the recomputation")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
