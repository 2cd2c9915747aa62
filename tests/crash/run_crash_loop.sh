#!/usr/bin/env bash
# The full crash loop (issue 13): 50 kill -9 at random moments under 10 chats
# with three concurrent senders each and mixed tool calls. On demand (about
# ten minutes on two cores); CI runs the short loop (crash_loop_test.cpp).
#   tests/crash/run_crash_loop.sh [kills] [chats]   (build dir: $BUILD or build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
cmake --build "$build" -j2 --target crash_test nanobot
NB_CRASH_KILLS=${1:-50} NB_CRASH_CHATS=${2:-10} \
  "$build/tests/crash/crash_test" --success=false \
  --test-case="crash loop: kill -9 at random moments*"
