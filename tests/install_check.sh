#!/usr/bin/env bash
# `cmake --install` from the build tree into an empty prefix: PREFIX/bin/infergrid runs from PATH
# in another folder (its catalogs and profiles are compiled in), and,
# where the Python module was built, `import infergrid` from PREFIX/PYTHON_DIR answers the same
# KV capacity as the binary.
# Usage: tests/install_check.sh BUILD_DIR [PYTHON_INSTALL_DIR]   (the second empty: no module)
set -euo pipefail
build=$1
python_dir=${2:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
[[ -x "$prefix/bin/infergrid" ]] || { echo "FAIL: no $prefix/bin/infergrid after cmake --install" >&2; exit 1; }
cd "$prefix"
flags=(--model=llama-3-8b --gpu=h100-sxm --engine=vllm-v1 --format=json)
json=$(PATH="$prefix/bin:$PATH" infergrid memory "${flags[@]}")
tokens=$(printf '%s' "$json" | /usr/bin/python3 -c 'import json, sys; print(int(json.load(sys.stdin)["kv_cache"]["tokens"]))')
if (( tokens < 100000 || tokens > 1000000 )); then
  echo "FAIL: the installed infergrid gives $tokens KV tokens for Llama-3-8B on one H100" >&2; exit 1
fi
if [[ -n "$python_dir" ]]; then
  [[ -f "$prefix/$python_dir/infergrid/__init__.py" ]] || { echo "FAIL: no package in $prefix/$python_dir" >&2; exit 1; }
  PYTHONPATH="$prefix/$python_dir" /usr/bin/python3 - "$prefix" "$tokens" <<'PY'
import sys
import infergrid
prefix, tokens = sys.argv[1], int(sys.argv[2])
assert infergrid.__file__.startswith(prefix), f"FAIL: imported {infergrid.__file__}, not the installed package"
report = infergrid.memory(model="llama-3-8b", gpu="h100-sxm", engine="vllm-v1")
got = int(report["kv_cache"]["tokens"])
assert got == tokens, f"FAIL: the installed module gives {got} KV tokens, the binary {tokens}"
PY
fi
echo "installed and ran: infergrid ($tokens KV tokens)${python_dir:+ and import infergrid}"
