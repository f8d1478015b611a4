"""Shared by the tests of the `infergrid` Python module (sim/app/python), which ctest runs with the
built package on PYTHONPATH and the built binary in INFERGRID_BIN (tests/CMakeLists.txt)."""
import json
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
