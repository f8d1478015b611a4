#!/usr/bin/env bash
# Regenerates docs/report-screenshot.png, the picture of the HTML report in README.md and
# docs/report.md: the default simulation's page (`infergrid simulate --report=FILE`), drawn by
# headless Chromium as the browser test draws it, scrolled to its latency section.
#   scripts/docs/report-screenshot.sh [INFERGRID_BINARY]    (default build/sim/infergrid, built if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-build/sim/infergrid}
if [[ ! -x $binary && $binary == build/sim/infergrid ]]; then scripts/build.sh infergrid; fi
command -v chromium >/dev/null || { echo "report-screenshot.sh: needs chromium (apt-get install chromium)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" simulate --quiet --report="$work/report.html" >/dev/null
# A tall window, then the part from the latency table down: the table and two CDFs.
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --user-data-dir="$work/profile" --virtual-time-budget=30000 --hide-scrollbars \
  --window-size=1000,1500 --screenshot="$work/page.png" "file://$work/report.html" 2>/dev/null
cp "$work/page.png" docs/report-screenshot.png
echo "wrote docs/report-screenshot.png ($(stat -c %s docs/report-screenshot.png) bytes)"
