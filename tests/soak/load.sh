#!/usr/bin/env bash
# The load run: 10 000 sessions x 3 messages through the API at 200
# concurrent (every reply its own, every file in order), RSS per live
# session, and the idle sessions quitting after gateway.sessionIdleSeconds
# with their memory given back.
# Usage: tests/soak/load.sh [sessions 10000] [concurrency 200] [idle seconds 20]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
"$root/deploy/build.sh" nanobot load_driver
exec "$root/build/tests/soak/load_driver" --sessions "${1:-10000}" \
  --messages 3 --concurrency "${2:-200}" --idle-seconds "${3:-20}"
