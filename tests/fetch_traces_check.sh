#!/usr/bin/env bash
# scripts/fetch-traces.py against a local mirror (the reference copies beside the checkout, as
# file:// URLs): every trace fetched and checked; a mirror serving a changed file is refused and
# leaves nothing; a second run checks what is there without fetching. Skipped (77) where the
# reference copies are absent.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/.." && pwd)/shared/data/traces
[[ -d "$shared" ]] || { echo "skipped: no $shared"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$(INFERGRID_TRACE_MIRROR="file://$shared" python3 "$repo/scripts/fetch-traces.py" "$work/dest") || fail "fetch from the mirror: $out"
grep -q "^7 of 7 traces in $work/dest" <<<"$out" || fail "not all fetched: $out"
cmp -s "$work/dest/splitwise_conv.csv" "$shared/splitwise_conv.csv" || fail "fetched file differs from its source"
again=$(INFERGRID_TRACE_MIRROR="file:///nonexistent" python3 "$repo/scripts/fetch-traces.py" "$work/dest") || fail "rerun: $again"
[[ $(grep -c "present, checksum ok" <<<"$again") == 7 ]] || fail "rerun did not check the present files: $again"

mkdir "$work/bad"
{ cat "$shared/splitwise_conv.csv"; echo "1,1,1"; } >"$work/bad/splitwise_conv.csv"
if bad=$(INFERGRID_TRACE_MIRROR="file://$work/bad" python3 "$repo/scripts/fetch-traces.py" "$work/dest2" --only=splitwise_conv.csv); then
  fail "a changed file was accepted: $bad"
fi
grep -q "splitwise_conv.csv: fetched from file://$work/bad/splitwise_conv.csv, but its SHA-256 is" <<<"$bad" || fail "message: $bad"
[[ -z "$(ls -A "$work/dest2")" ]] || fail "a refused download left files: $(ls -A "$work/dest2")"
echo "fetch-traces: mirror fetch, rerun check and a changed file refused"
