"""simulate()'s per-request and per-iteration tables: the command's requests.csv and
iterations.csv, as pandas DataFrames, or lists of dicts where pandas is not installed."""
import csv
import os
import subprocess
import sys

import pytest

import infergrid
from conftest import SMALL, flag_args


def read_csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_tables_are_the_commands_csvs(tmp_path, run_binary):
    pandas = pytest.importorskip("pandas")
    code, _, err = run_binary("simulate", "--quiet", "--out=%s" % tmp_path, *flag_args(SMALL))
    assert code == 0, err
    result = infergrid.simulate(**SMALL)
    for name in ("requests", "iterations"):
        table = result[name]
        assert isinstance(table, pandas.DataFrame)
        expected = pandas.read_csv(tmp_path / (name + ".csv"))
        pandas.testing.assert_frame_equal(table, expected)
    assert len(result["requests"]) == 60
    assert len(result["iterations"]) == result["summary"]["iterations"]["iterations"]


def test_out_keeps_the_commands_files_and_outputs(tmp_path):
    result = infergrid.simulate(**SMALL, out=tmp_path / "run", outputs=["summary", "iterations"])
    assert sorted(os.listdir(tmp_path / "run")) == ["iterations.csv", "summary.json"]
    assert result["requests"] is None
    assert len(result["iterations"]) == result["summary"]["iterations"]["iterations"]


def test_without_pandas_the_tables_are_lists_of_dicts(tmp_path):
    # A fresh interpreter where `import pandas` fails.
    code = ("import sys; sys.modules['pandas'] = None\n"
            "import infergrid\n"
            "r = infergrid.simulate(max_requests=20, rate=4, record_wall_time=False)\n"
            "rows = r['requests']\n"
            "assert isinstance(rows, list) and len(rows) == 20, type(rows)\n"
            "assert rows[0]['id'] == 0 and rows[0]['status'] == 'finished'\n"
            "assert isinstance(rows[0]['ttft_s'], float)\n"
            "assert isinstance(r['iterations'][0]['binding'], str)\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_tables_false_writes_and_reads_nothing():
    result = infergrid.simulate(**SMALL, tables=False)
    assert result["requests"] is None and result["iterations"] is None
