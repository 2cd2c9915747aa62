#!/usr/bin/env bash
# Builds nanobot and runs the gateway in the foreground: the OpenAI-compatible
# API on 127.0.0.1:8900 and /health, /stats, /metrics on 127.0.0.1:18790.
# A first run writes ~/.nanobot/config.json and the workspace (never
# overwriting). Extra arguments go to `nanobot gateway` (e.g. -c FILE, -v).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/deploy/build.sh" nanobot
bin="$root/build/actors/app/nanobot"
config="${NANOBOT_CONFIG:-$HOME/.nanobot/config.json}"
if [ ! -f "$config" ]; then
  "$bin" onboard -c "$config"
fi
exec "$bin" gateway -c "$config" "$@"
