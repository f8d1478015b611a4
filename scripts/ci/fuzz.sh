#!/usr/bin/env bash
# Fuzzes every trace reader, the textproto loaders and the JSON readers with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang, build dir build-fuzz), each for FUZZ_SECONDS (default 45)
# from the seed corpus in fuzz/corpus/ (and the catalogs, for the textproto loaders). Fails on
# any crash, leak or sanitizer report; the reproducer is left in build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../.."
INFERGRID_FUZZ_DEPS=1 scripts/install-deps.sh
seconds="${FUZZ_SECONDS:-45}"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINFERGRID_FUZZ=ON -DINFERGRID_BUILD_KERNELS=OFF -DINFERGRID_WERROR=OFF \
  -DCMAKE_CXX_FLAGS="$sanitize -fsanitize=fuzzer-no-link" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" >/dev/null
ninja -C build-fuzz -j"${JOBS:-$(nproc)}" trace_reader_fuzzer textproto_fuzzer json_reader_fuzzer
mkdir -p build-fuzz/artifacts build-fuzz/corpus/trace build-fuzz/corpus/textproto build-fuzz/corpus/json
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run() {
  local target=$1; shift
  echo "== $target for ${seconds}s" >&2
  "build-fuzz/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix=build-fuzz/artifacts/"$target"- -print_final_stats=1 "$@" 2>&1 | tail -n 12
  return "${PIPESTATUS[0]}"
}
run trace_reader_fuzzer -max_len=65536 build-fuzz/corpus/trace fuzz/corpus/trace
run textproto_fuzzer -max_len=16384 build-fuzz/corpus/textproto fuzz/corpus/textproto models/catalog hardware/catalog traces/presets
run json_reader_fuzzer -max_len=65536 build-fuzz/corpus/json fuzz/corpus/json
