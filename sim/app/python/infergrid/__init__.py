"""InferGrid from Python: the `infergrid` command's memory, roofline, simulate, compare, trace
stats and report, called with the command's flags as keyword arguments, returning plain data.

    import infergrid
    run = infergrid.simulate(model="llama-3-70b", tensor_parallel_size=4, rate=8)
    run["summary"]["ttft"]["p99"]     # summary.json as a dict (the proto's JSON mapping, typed)
    run["requests"]                   # requests.csv: a pandas DataFrame (a list of dicts without pandas)
    run["iterations"]                 # iterations.csv, likewise

A keyword is the command's flag with underscores (--tensor-parallel-size: tensor_parallel_size).
The keywords become a command line that the command's own parser reads, so every flag the
command has works here, with its default, and nothing else does: an unknown keyword or a bad
value raises ValueError with the command's message (the binary's exit code 2); bad input, such
as a missing trace or a model that does not fit, raises RuntimeError (exit code 1). Values:
True/False, numbers (NumPy's too), strings, paths, and lists for comma lists
(outputs=["summary", "requests"]); None leaves the flag at its default. flags("simulate") lists a
command's keywords.

The dicts have the proto's field names and its types: every integer field is an int (the JSON
prints 64-bit ones as strings), every double a float, even where the value is whole.

SimGrid runs one engine per process, ever, so simulate() runs each call in a forked child
process and can be called in a loop. docs/python.md has the details and a worked example.
"""
import csv
import numbers
import os
import tempfile

from infergrid import _core

__all__ = ["memory", "roofline", "simulate", "compare", "trace_stats", "report", "flags"]


def flags(command):
    """The keyword arguments `command` ("simulate", "memory", ...) accepts, as its flags."""
    return list(_core.flags(command))


def memory(**flags):
    """`infergrid memory --format=json`: weights and KV accounting, or with engine=... the
    engine's KV-cache plan. Returns the MemoryResult (or EngineMemoryResult) as a dict."""
    message = "EngineMemoryResult" if flags.get("engine") else "MemoryResult"  # as the command chooses
    return _json_command("memory", [], flags, message)


def roofline(**flags):
    """`infergrid roofline --format=json`: FLOPs, bytes and the two lower bounds of one pass,
    with the calibrated prediction. Returns the RooflineResult as a dict."""
    return _json_command("roofline", [], flags, "RooflineResult")


def simulate(*, tables=True, **flags):
    """`infergrid simulate`, run in a child process. Returns {"summary": the SimulationSummary as
    a dict, "requests": requests.csv, "iterations": iterations.csv} with the tables as pandas
    DataFrames (lists of dicts without pandas). tables=False skips writing and reading the two
    tables (they are None): a sweep that needs only the metrics runs faster. out=DIR writes the
    run's files there as the command does (and the tables are read from there)."""
    _reject_format(flags)
    if not isinstance(tables, bool):
        # "no" or 0 would be read as Python reads them (a non-empty string is true).
        raise ValueError("tables: expected True or False, got %r" % (tables,))
    with tempfile.TemporaryDirectory(prefix="infergrid-") as scratch:
        args = _command_line(flags) + ["--format=json"]
        folder, selected = None, []
        if flags.get("out") is not None:
            folder = os.fspath(flags["out"])
            selected = _selected_outputs(flags.get("outputs"))
        elif tables and flags.get("outputs") is None:
            folder, selected = scratch, ["requests", "iterations"]
            args += ["--out=" + scratch, "--outputs=requests,iterations"]
        summary = _typed("SimulationSummary", _core.run_in_child("simulate", args))
        result = {"summary": summary, "requests": None, "iterations": None}
        if tables and folder is not None:
            for name in ("requests", "iterations"):
                if name in selected:
                    result[name] = _read_table(os.path.join(folder, name + ".csv"))
        return result


def compare(*summary_files, **flags):
    """`infergrid compare --format=json`: compare(a="--scheduler=vllm", b="--scheduler=sarathi",
    replications=5, ...) runs both configurations on common random numbers (each simulation in
    a child process); compare("a/summary.json", "b/summary.json") compares two finished runs.
    Returns the Comparison as a dict."""
    return _json_command("compare", [os.fspath(f) for f in summary_files], flags, "Comparison")


def trace_stats(trace, **flags):
    """`infergrid trace stats --trace=TRACE --format=json`: what a trace holds (arrival rate,
    burstiness, token lengths, prefix reuse). Returns TraceStats as a dict."""
    return _json_command("trace", ["stats"], dict(flags, trace=trace), "TraceStats")


def report(*folders, out):
    """`infergrid report FOLDER... --out=OUT`: the HTML report of simulate/compare output folders.
    Returns the path written."""
    _core.run("report", [os.fspath(f) for f in folders] + ["--out=" + os.fspath(out)])
    return os.fspath(out)


def _json_command(command, positional, flags, message):
    _reject_format(flags)
    return _typed(message, _core.run(command, positional + _command_line(flags) + ["--format=json"]))


def _typed(message, text):
    """The command's JSON as the proto message types it (typed_json.h): json.loads would give
    "0" for an int64 and 4 or 4.5 for a double, depending on the value."""
    return _core.typed_json("infergrid." + message, text)


def _reject_format(flags):
    if "format" in flags:
        raise ValueError("format: the module reads the command's JSON (--format=json) itself")


def _command_line(flags):
    """Keyword arguments as --name=value flags, in the order given."""
    return ["--%s=%s" % (name, _flag_text(name, value)) for name, value in flags.items() if value is not None]


def _flag_text(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):  # int, numpy.int64, ...
        return str(int(value))
    if isinstance(value, numbers.Real):      # float, numpy.float64, ...
        return repr(float(value))
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_flag_text(name, v) for v in value)
    raise ValueError("%s: unsupported value %r (give a bool, number, string, path or list)" % (name, value))


def _selected_outputs(outputs):
    if outputs is None:
        return ["summary", "requests", "iterations", "timeline"]
    if isinstance(outputs, str):
        return outputs.split(",")
    return list(outputs)


def _read_table(path):
    try:
        import pandas
    except ImportError:
        pandas = None
    if pandas is not None:
        return pandas.read_csv(path)
    with open(path, newline="") as f:
        return [{k: _cell(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _cell(text):
    """A CSV field as the value pandas would give it: int, float, None for empty, else text."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
