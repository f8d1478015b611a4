#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build, and run the main job on its embedded
# default (Llama-3-8B on one H100 SXM: the accounting report).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh infergrid infergrid_python   # the command, and `import infergrid` (build/sim/app/python)
./build/sim/infergrid memory --model=llama-3-8b --gpu=h100-sxm --params=nominal --context=8192
echo
./build/sim/infergrid roofline --model=llama-3-8b --gpu=h100-sxm --params=nominal --phase=decode --context=8192
# Then the main job: a default simulation (Llama-3-8B on one H100 SXM, the default engine vLLM
# V1 with its chunked-prefill scheduler, 1,000 requests of the azure-conv workload at 5 req/s;
# well under a second).
echo
./build/sim/infergrid simulate
