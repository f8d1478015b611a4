#!/usr/bin/env bash
# The C++ and CUDA sources are formatted as .clang-format says (clang-format 14, Debian 12's):
# exits 1 naming every file clang-format would change. To apply it: the same file list with
# `clang-format -i`, e.g. `scripts/checks/check-format.sh --fix`.
# Usage: scripts/checks/check-format.sh [--fix] [REPO_ROOT]
set -euo pipefail
fix=0
if [[ "${1:-}" == --fix ]]; then fix=1; shift; fi
cd "${1:-$(dirname "$0")/../..}"
command -v clang-format >/dev/null || { echo "check-format.sh: clang-format is not installed (scripts/install-deps.sh)" >&2; exit 1; }
mapfile -d '' files < <(find base models hardware calibration traces kernels sim tests fuzz \
  -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) -not -path '*/node_modules/*' -print0)
if (( fix )); then
  printf '%s\0' "${files[@]}" | xargs -0 -P2 -n80 clang-format -i
  exit 0
fi
if ! printf '%s\0' "${files[@]}" | xargs -0 -P2 -n80 clang-format --dry-run --Werror 2>/tmp/check-format.$$; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' /tmp/check-format.$$ | cut -d: -f1 | sort -u | sed 's/$/: not formatted as .clang-format says/'
  rm -f /tmp/check-format.$$
  echo "check-format.sh: run scripts/checks/check-format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/check-format.$$
