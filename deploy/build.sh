#!/usr/bin/env bash
# Configures and builds nanobot-cpp (Release, 2 jobs) into build/.
# Usage: deploy/build.sh [cmake --build targets...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/deploy/install-deps.sh"
# A clean build: each target compiled in batches (NB_UNITY, see CMakeLists).
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DNB_UNITY=ON >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "$root/build" -j2 --target "$@"
else
  cmake --build "$root/build" -j2
fi
