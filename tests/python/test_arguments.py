"""Keyword arguments become the command's own command line: every flag works with the binary's
name and default, values convert as the parser expects, and errors carry the command's message
as ValueError (usage, exit 2) or RuntimeError (bad input, exit 1)."""
import re

import pytest

import infergrid
from conftest import flag_args, same


def help_flags(run_binary, command):
    code, out, _ = run_binary(command, "--help")
    assert code == 0
    # The flags, then the aliases the command also accepts ("  --max-batch-size is --max-num-seqs").
    names = re.findall(r"^  --([a-z0-9-]+)=", out, re.M) + re.findall(r"^  --([a-z0-9-]+) is --", out, re.M)
    return [name.replace("-", "_") for name in names]


@pytest.mark.parametrize("command", ["memory", "roofline", "simulate", "compare", "trace", "report"])
def test_keywords_are_exactly_the_commands_flags(run_binary, command):
    assert infergrid.flags(command) == help_flags(run_binary, command)


@pytest.mark.parametrize("flags", [
    {"model": "llama-3-70b", "gpu": "h100-sxm", "context": 8192, "batch": 4},
    {"model": "llama-3-8b", "kv_cache_dtype": "fp8"},
    {"model": "llama-3-8b", "engine": "vllm-v1", "gpu_memory_utilization": 0.85},
])
def test_memory_equals_the_command(binary_json, flags):
    assert same(infergrid.memory(**flags), binary_json("memory", *flag_args(flags)))


@pytest.mark.parametrize("flags", [
    {"model": "llama-3-8b", "phase": "decode", "batch": 32, "context": 2048},
    {"model": "llama-3-70b", "phase": "prefill", "prompt": 1024},
])
def test_roofline_equals_the_command(binary_json, flags):
    assert same(infergrid.roofline(**flags), binary_json("roofline", *flag_args(flags)))


def test_values_convert_as_the_parser_expects():
    result = infergrid.simulate(max_requests=20, rate=2.5, enable_cuda_graphs=False, seed=7,
                                outputs=None, tables=False)
    config = result["summary"]["config"]
    assert config["rate"] == 2.5
    assert config["enable_cuda_graphs"] is False
    assert config["seed"] == 7  # uint64: an int (the JSON prints a string; docs/python.md#types)
    assert "--noenable-cuda-graphs" in config["command_line"] or "--enable-cuda-graphs=false" in config["command_line"]


def test_numpy_numbers_are_numbers():
    numpy = pytest.importorskip("numpy")
    config = infergrid.simulate(max_requests=numpy.int64(10), rate=numpy.float64(2.5), tables=False)["summary"]["config"]
    assert config["max_requests"] == 10 and config["rate"] == 2.5


def test_unknown_keyword_is_a_value_error_with_the_commands_message():
    with pytest.raises(ValueError, match="unknown flag --no_such_flag for this command"):
        infergrid.memory(model="llama-3-8b", no_such_flag=1)


def test_bad_value_is_a_value_error():
    with pytest.raises(ValueError, match="rate"):
        infergrid.simulate(rate="fast", tables=False)
    with pytest.raises(ValueError, match="scheduler"):
        infergrid.simulate(scheduler="fifo", tables=False)
    with pytest.raises(ValueError, match="unsupported value"):
        infergrid.simulate(rate={"a": 1})


def test_a_decimal_out_of_a_doubles_range_is_a_value_error_naming_the_flag():
    # 1e309 used to keep the default rate while the summary's command line said inf.
    for rate in ("1e309", "-1e309", "1e-400", 1e309):
        with pytest.raises(ValueError, match="flag --rate: Illegal value"):
            infergrid.simulate(rate=rate, tables=False)


def test_bad_input_is_a_runtime_error(tmp_path):
    with pytest.raises(RuntimeError, match="missing.csv"):
        infergrid.simulate(trace=tmp_path / "missing.csv", tables=False)
    with pytest.raises(RuntimeError, match="missing.csv"):
        infergrid.trace_stats(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="unknown model"):
        infergrid.memory(model="no-such-model")


def test_tables_is_a_bool():
    with pytest.raises(ValueError, match="tables: expected True or False, got 'no'"):
        infergrid.simulate(tables="no")


def test_a_trace_past_2_to_the_32_seconds_is_an_error_not_a_crash(tmp_path):
    trace = tmp_path / "far.csv"
    trace.write_text("arrival_s,input_tokens,output_tokens\n0,10,10\n1e17,10,10\n")
    with pytest.raises(RuntimeError, match="far.csv:3:1: timestamp 1e"):
        infergrid.trace_stats(trace)


def test_the_module_reads_json_itself():
    with pytest.raises(ValueError, match="format"):
        infergrid.memory(model="llama-3-8b", format="table")


def test_trace_stats_equals_the_command(tmp_path, binary_json):
    trace = tmp_path / "t.csv"
    trace.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                     "2023-11-16 18:15:46.6805900,374,44\n"
                     "2023-11-16 18:15:50.9951690,396,109\n"
                     "2023-11-16 18:15:51.2070000,879,55\n")
    assert same(infergrid.trace_stats(trace), binary_json("trace", "stats", "--trace=%s" % trace))
