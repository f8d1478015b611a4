"""simulate() runs the command in a child process: its summary equals the command's summary.json
for the same flags (wall-clock fields off), it can be called in a loop (one SimGrid engine per
process, so each call a fresh child), and compare() equals the command too."""
import json
import time

import infergrid
from conftest import SMALL, flag_args, same


def test_summary_equals_the_commands_summary_json(tmp_path, run_binary):
    flags = dict(SMALL, scheduler="sarathi", slo_ttft=0.5, slo_tpot=0.05)
    code, _, err = run_binary("simulate", "--quiet", "--out=%s" % (tmp_path / "run"), *flag_args(flags))
    assert code == 0, err
    expected = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert same(infergrid.simulate(**flags)["summary"], expected)


def test_twenty_simulations_in_one_interpreter():
    started = time.monotonic()
    p99s = []
    for seed in range(20):
        result = infergrid.simulate(max_requests=30, rate=5, seed=seed, record_wall_time=False, tables=False)
        assert result["summary"]["completed"] == 30
        assert result["summary"]["config"]["seed"] == seed
        p99s.append(result["summary"]["ttft"]["p99"])
    assert len(set(p99s)) > 1  # each call ran its own workload
    # Deterministic: the same flags twice give the same summary.
    again = infergrid.simulate(max_requests=30, rate=5, seed=3, record_wall_time=False, tables=False)
    assert again["summary"]["ttft"]["p99"] == p99s[3]
    print("20 simulations: %.2f s" % (time.monotonic() - started))


def test_a_failed_simulation_leaves_the_interpreter_able_to_simulate(tmp_path):
    try:
        infergrid.simulate(trace=tmp_path / "missing.csv", tables=False)
    except RuntimeError:
        pass
    assert infergrid.simulate(max_requests=10, tables=False)["summary"]["completed"] == 10


def test_compare_equals_the_command(tmp_path, binary_json):
    flags = {"max_requests": 40, "rate": 6, "a": "--scheduler=vllm", "b": "--scheduler=sarathi",
             "replications": 2, "record_wall_time": False}
    assert same(infergrid.compare(**flags), binary_json("compare", "--quiet", *flag_args(flags)))


def test_compare_two_summary_files(tmp_path):
    for name, scheduler in (("a", "vllm"), ("b", "sarathi")):
        infergrid.simulate(**SMALL, scheduler=scheduler, out=tmp_path / name, outputs="summary")
    comparison = infergrid.compare(tmp_path / "a" / "summary.json", tmp_path / "b" / "summary.json")
    assert comparison["replications"] == 1
    assert comparison["b"]["scheduler"] == "sarathi"


def test_report_writes_the_page(tmp_path):
    infergrid.simulate(**SMALL, out=tmp_path / "run")
    page = infergrid.report(tmp_path / "run", out=tmp_path / "run.html")
    assert page == str(tmp_path / "run.html")
    assert (tmp_path / "run.html").read_text().count('<figure class="chart"') == 13
