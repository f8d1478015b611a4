"""The worked example of docs/python.md and the snippet in README.md run as written: the test
takes the fenced block after the page's "worked example" marker (README's only python block)
and runs it in a fresh interpreter, in a scratch folder."""
import os
import re
import subprocess
import sys

MARKER = "<!-- worked example: tests/python/test_example.py runs the next block -->"


def example_code(source_dir, page_name="docs/python.md", marker=MARKER):
    with open(os.path.join(source_dir, page_name)) as f:
        page = f.read()
    assert marker in page, f"{page_name} lost its marker {marker!r}"
    block = re.search(r"```python\n(.*?)```", page[page.index(marker):], re.S)
    assert block, f"no ```python block in {page_name} after {marker!r}"
    return block.group(1)


def test_readme_snippet_prints_a_row_per_rate(tmp_path, source_dir):
    done = subprocess.run([sys.executable, "-c", example_code(source_dir, "README.md", "```python")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert [row[0] for row in rows] == ["2", "4", "8", "16"]
    # TTFT p99 and TPOT p99 in seconds, growing with the rate.
    ttft = [float(row[1]) for row in rows]
    tpot = [float(row[2]) for row in rows]
    assert all(0 < t < 10 for t in ttft) and ttft[-1] > ttft[0]
    assert all(0 < t < 1 for t in tpot) and tpot[-1] > tpot[0]


def test_rate_sweep_example_runs(tmp_path, source_dir):
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", example_code(source_dir)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "ttft_p99_ms" in done.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "rate_sweep.png").stat().st_size > 10000
