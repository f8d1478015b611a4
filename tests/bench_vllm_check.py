#!/usr/bin/env python3
"""Recomputes `vllm bench serve`'s metrics and report from a result saved with --save-detailed,
with NumPy and Python's own formatting, following the definitions of vLLM's calculate_metrics
and its print block (vllm/benchmarks/serve.py), and checks that InferGrid's report and saved
JSON are identical: every digit of every statistic, the text, the key order and json.dumps.

Usage: tests/bench_vllm_check.py RESULT.json REPORT.txt [--goodput=ttft:MS,tpot:MS,e2el:MS]
REPORT.txt is `infergrid bench serve` stdout (its first line, InferGrid's header, is skipped).
Exit 0: identical; 1: a difference, printed.
"""
import difflib
import json
import sys

import numpy as np


def main():
    result_path, report_path = sys.argv[1], sys.argv[2]
    goodput = {}
    for arg in sys.argv[3:]:
        if arg.startswith("--goodput="):
            for item in arg.split("=", 1)[1].split(","):
                k, v = item.split(":")
                goodput[k] = float(v)
    raw = open(result_path).read()
    r = json.loads(raw)
    percentiles = sorted({float(k.split("_")[0][1:]) for k in r if k.startswith("p") and k.endswith("_ttft_ms")})
    metrics = [m for m in ("ttft", "tpot", "itl", "e2el") if f"mean_{m}_ms" in r]
    n = len(r["ttfts"])
    ok = [r["errors"][i] == "" for i in range(n)]
    ttfts, tpots, all_tpots, itls, e2els = [], [], [], [], []
    total_in = 0
    for i in range(n):
        if not ok[i]:
            continue
        out_len, lat, ttft = r["output_lens"][i], r["latencies"][i], r["ttfts"][i]
        total_in += r["input_lens"][i]
        tpot = 0.0
        if out_len > 1:
            tpot = (lat - ttft) / (out_len - 1)
            tpots.append(tpot)
        all_tpots.append(tpot)
        itls += r["itls"][i]
        ttfts.append(ttft)
        e2els.append(lat)
    completed = len(ttfts)
    total_out = sum(r["output_lens"])
    dur = r["duration"]
    good = 0
    for ttft, tpot, e2el in zip(ttfts, all_tpots, e2els):
        if all(goodput[k] / 1000 >= v for k, v in (("ttft", ttft), ("tpot", tpot), ("e2el", e2el)) if k in goodput):
            good += 1
    # Whole-second token buckets from the first send; peak concurrency by a sweep.
    starts = [r["start_times"][i] for i in range(n) if ok[i]]
    lats = [r["latencies"][i] for i in range(n) if ok[i]]
    first = min(starts)
    buckets = int(np.ceil(max(s + l for s, l in zip(starts, lats)) - first)) + 1
    tokens = np.zeros(buckets)
    for i in (i for i in range(n) if ok[i]):
        t = r["start_times"][i] + r["ttfts"][i]
        times = [t]
        for gap in r["itls"][i]:
            t += gap
            times.append(t)
        for t in times:
            b = int(t - first)
            if 0 <= b < buckets:
                tokens[b] += 1
    events = sorted([(s, 1) for s in starts] + [(s + l, -1) for s, l in zip(starts, lats)])
    level = peak = 0
    for _, d in events:
        level += d
        peak = max(peak, level)

    lines = []
    rate = r["request_rate"]
    lines.append(f"Traffic request rate: {rate}")
    lines.append(f"Burstiness factor: {r['burstiness']} ({'Poisson process' if r['burstiness'] == 1.0 else 'Gamma distribution'})")
    lines.append(f"Maximum request concurrency: {r['max_concurrency']}")
    row = "{:<40} {:<10}".format
    row2 = "{:<40} {:<10.2f}".format
    lines.append("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    lines.append(row("Successful requests:", completed))
    lines.append(row("Failed requests:", n - completed))
    if r["max_concurrency"] is not None:
        lines.append(row("Maximum request concurrency:", r["max_concurrency"]))
    if rate != "inf":
        lines.append(row2("Request rate configured (RPS):", rate))
    lines.append(row2("Benchmark duration (s):", dur))
    lines.append(row("Total input tokens:", total_in))
    lines.append(row("Total generated tokens:", total_out))
    lines.append(row2("Request throughput (req/s):", completed / dur))
    if goodput:
        lines.append(row2("Request goodput (req/s):", good / dur))
    lines.append(row2("Output token throughput (tok/s):", total_out / dur))
    lines.append(row2("Peak output token throughput (tok/s):", float(np.max(tokens))))
    lines.append(row2("Peak concurrent requests:", peak))
    lines.append(row2("Total token throughput (tok/s):", (total_in + total_out) / dur))
    names = {"ttft": ("TTFT", "Time to First Token"), "tpot": ("TPOT", "Time per Output Token (excl. 1st token)"),
             "itl": ("ITL", "Inter-token Latency"), "e2el": ("E2EL", "End-to-end Latency")}
    values = {"ttft": ttfts, "tpot": tpots, "itl": itls, "e2el": e2els}
    expected = {"request_throughput": completed / dur, "output_throughput": total_out / dur,
                "total_token_throughput": (total_in + total_out) / dur,
                "max_output_tokens_per_s": float(np.max(tokens)), "max_concurrent_requests": peak}
    if goodput:
        expected["request_goodput"] = good / dur
    for m in metrics:
        v = values[m]
        name, header = names[m]
        lines.append("{s:{c}^{n}}".format(s=header, n=50, c="-"))
        mean, median, std = np.mean(v or 0) * 1000, np.median(v or 0) * 1000, np.std(v or 0) * 1000
        lines.append(row2(f"Mean {name} (ms):", mean))
        lines.append(row2(f"Median {name} (ms):", median))
        expected.update({f"mean_{m}_ms": mean, f"median_{m}_ms": median, f"std_{m}_ms": std})
        for p in percentiles:
            word = str(int(p)) if int(p) == p else str(p)
            value = np.percentile(v or 0, p) * 1000
            lines.append(row2(f"P{word} {name} (ms):", value))
            expected[f"p{word}_{m}_ms"] = value
    lines.append("=" * 50)
    text = "\n".join(lines) + "\n"

    failures = []
    report = open(report_path).read().split("\n", 1)[1]
    if text != report:
        failures.append("report text:\n" + "".join(difflib.unified_diff(text.splitlines(True), report.splitlines(True))))
    for key, value in expected.items():
        if r[key] != value:
            failures.append(f"{key}: saved {r[key]!r}, recomputed {value!r}")
    head = ["date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
            "burstiness", "max_concurrency", "duration", "completed", "failed", "total_input_tokens",
            "total_output_tokens", "request_throughput", "request_goodput", "output_throughput",
            "total_token_throughput", "input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
            "queue_times", "generated_texts", "errors", "max_output_tokens_per_s", "max_concurrent_requests", "rtfx"]
    metric_keys = [k for k in expected if k.startswith(("mean_", "median_", "std_", "p"))]
    if list(r.keys()) != head + metric_keys:
        failures.append(f"key order: {list(r.keys())}")
    if json.dumps(r) != raw:
        failures.append("the file is not json.dumps of its own content")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
