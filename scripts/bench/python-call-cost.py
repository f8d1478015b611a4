#!/usr/bin/env python3
"""Measures what a call of the `infergrid` Python module costs, and how much of it is the child
process simulate() runs in (docs/python.md, "One SimGrid engine per process"): medians of N calls
with pandas imported, as a notebook would have it.
  PYTHONPATH=build/sim/app/python /usr/bin/python3 scripts/bench/python-call-cost.py [BINARY] [N]
BINARY (default build/sim/infergrid) is timed as a process for contrast."""
import statistics
import subprocess
import sys
import time

import infergrid
from infergrid import _core

try:
    import pandas  # noqa: F401  (a notebook's interpreter: bigger to fork)
except ImportError:
    pass


def median_ms(call, n):
    times = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return 1e3 * statistics.median(times)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/sim/infergrid"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    memory_args = ["--model=llama-3-8b", "--format=json"]
    rows = [
        ("memory(...) in-process (_core.run)", lambda: _core.run("memory", memory_args), n),
        ("the same command in a child (_core.run_in_child)", lambda: _core.run_in_child("memory", memory_args), n),
        ("simulate(max_requests=1, tables=False)",
         lambda: infergrid.simulate(max_requests=1, tables=False), n),
        ("infergrid simulate --max-requests=1, a process",
         lambda: subprocess.run([binary, "simulate", "--max-requests=1", "--quiet"], check=True,
                                stdout=subprocess.DEVNULL), n),
        ("simulate() default, tables=False", lambda: infergrid.simulate(tables=False), max(5, n // 10)),
        ("simulate() default, with the tables", lambda: infergrid.simulate(), max(5, n // 10)),
    ]
    for name, call, count in rows:
        print("%-50s %9.1f ms  (median of %d)" % (name, median_ms(call, count), count))


if __name__ == "__main__":
    main()
