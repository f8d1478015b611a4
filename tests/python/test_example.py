"""The worked example of docs/python.md runs as written: the test takes the fenced block after
the page's "worked example" marker and runs it in a fresh interpreter, in a scratch folder."""
import os
import re
import subprocess
import sys

MARKER = "<!-- worked example: tests/python/test_example.py runs the next block -->"


def example_code(source_dir):
    with open(os.path.join(source_dir, "docs", "python.md")) as f:
        page = f.read()
    assert MARKER in page, "docs/python.md lost its worked-example marker"
    block = re.search(r"```python\n(.*?)```", page[page.index(MARKER):], re.S)
    assert block, "no ```python block after the marker"
    return block.group(1)


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
