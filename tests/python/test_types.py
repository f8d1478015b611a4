"""The dicts carry the proto's types, not the JSON's accidents: a 64-bit integer field is an int
(the proto3 JSON mapping prints it as a string), a double a float even where its value is whole
(the JSON prints 6.0 as 6), an int32 an int (docs/python.md#types)."""
import infergrid
from conftest import SMALL


def kinds(value, path=""):
    """Every leaf of a dict/list tree as (path, type)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from kinds(item, path + "." + key)
    elif isinstance(value, list):
        for item in value:
            yield from kinds(item, path + "[]")
    else:
        yield path, type(value)


def test_simulate_summary_types():
    summary = infergrid.simulate(**SMALL, seed=7, tables=False)["summary"]
    assert summary["config"]["seed"] == 7 and type(summary["config"]["seed"]) is int   # uint64
    assert type(summary["completed"]) is int and summary["completed"] == 60           # int32
    assert type(summary["config"]["rate"]) is float and summary["config"]["rate"] == 6.0  # double, whole
    assert type(summary["input_tokens"]) is float                                     # a count held as a double
    assert type(summary["config"]["enable_cuda_graphs"]) is bool
    assert type(summary["ttft"]["p99"]) is float


def test_compare_seeds_are_ints():
    comparison = infergrid.compare(max_requests=20, rate=6, a="--scheduler=vllm", b="--scheduler=sarathi",
                                   replications=2, seed=3, record_wall_time=False)
    assert len(comparison["seeds"]) == 2 and comparison["seeds"][0] == 3
    assert all(type(s) is int for s in comparison["seeds"])                            # repeated uint64
    assert type(comparison["replications"]) is int


def test_trace_stats_int64_counts_are_ints(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,200,20\n")
    stats = infergrid.trace_stats(trace)
    assert stats["rows"] == 2 and type(stats["rows"]) is int
    assert type(stats["skipped_by_reason"]) is dict


def test_memory_and_roofline_types():
    report = infergrid.roofline(model="llama-3-8b", phase="decode", batch=8, context=1024)
    launches = [t for p, t in kinds(report) if p.endswith(".kernel_launches")]
    assert launches and all(t is int for t in launches)
    memory = infergrid.memory(model="llama-3-8b", engine="vllm-v1")
    assert all(t in (int, float, str, bool) for _, t in kinds(memory))
