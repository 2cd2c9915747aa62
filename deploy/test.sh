#!/usr/bin/env bash
# Installs what is missing, builds everything (Release, 2 jobs) and runs the
# whole test suite with ctest. Exit code: ctest's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/deploy/build.sh"
cd "$root/build"
ctest -j2 --output-on-failure --timeout 900
