#!/usr/bin/env bash
# Builds and runs the benchmarks; prints the figures: the context figures
# (governor on 10 000 messages, prompt assembly), the API's under 1 000
# slowloris connections, then the kernel's.
# Usage: tests/bench/run.sh [turns per kernel measurement, default 2000]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/deploy/build.sh" kernel_bench context_bench api_bench workspace_bench
"$root/build/tests/bench/context_bench"
"$root/build/tests/bench/api_bench"
"$root/build/tests/bench/workspace_bench"
exec "$root/build/tests/bench/kernel_bench" "$@"
