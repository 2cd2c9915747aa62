#!/usr/bin/env bash
# Builds and runs the kernel benchmark; prints the figures.
# Usage: tests/bench/run.sh [turns per measurement, default 2000]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/deploy/build.sh" kernel_bench
exec "$root/build/tests/bench/kernel_bench" "$@"
