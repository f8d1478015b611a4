"""Shared by the tests of the `infergrid` Python module (sim/app/python), which ctest runs with the
built package on PYTHONPATH and the built binary in INFERGRID_BIN (tests/CMakeLists.txt)."""
import json
import math
import os
import subprocess

import pytest

# A small deterministic run: the same flags for the module and the binary.
SMALL = {"max_requests": 60, "rate": 6, "record_wall_time": False}


def flag_args(flags):
    """The binary's command line for keyword arguments, spelled as users type it (dashes)."""
    def text(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    return ["--%s=%s" % (name.replace("_", "-"), text(value)) for name, value in flags.items()]


def same(typed, printed):
    """True when the module's value `typed` holds exactly what the command printed as JSON
    (`printed`, from json.loads), with the module's types (sim/app/python/typed_json.h): a 64-bit
    integer printed as a string is an int, a double printed without a decimal point a float."""
    if isinstance(printed, dict):
        return isinstance(typed, dict) and typed.keys() == printed.keys() and all(
            same(typed[k], printed[k]) for k in printed)
    if isinstance(printed, list):
        return isinstance(typed, list) and len(typed) == len(printed) and all(map(same, typed, printed))
    if isinstance(typed, bool) or isinstance(printed, bool):
        return typed is printed
    if isinstance(typed, int):
        return isinstance(printed, (int, str)) and int(printed) == typed
    if isinstance(typed, float):
        if printed == "NaN":
            return math.isnan(typed)
        return isinstance(printed, (int, float, str)) and float(printed) == typed
    return type(typed) is type(printed) and typed == printed


@pytest.fixture(scope="session")
def binary():
    return os.environ["INFERGRID_BIN"]


@pytest.fixture(scope="session")
def source_dir():
    return os.environ["INFERGRID_SOURCE_DIR"]


@pytest.fixture
def run_binary(binary):
    """Runs `infergrid ARGS...`; returns (exit code, stdout, stderr)."""
    def run(*args):
        done = subprocess.run([binary, *args], capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr
    return run


@pytest.fixture
def binary_json(run_binary):
    """The JSON a command prints with --format=json."""
    def run(*args):
        code, out, err = run_binary(*args, "--format=json")
        assert code == 0, err
        return json.loads(out)
    return run
