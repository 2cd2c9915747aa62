#!/usr/bin/env bash
# The WebUI's automations, skills and memory pages in a real browser (issue
# 20, parts 4 and 5): a real gateway against the scripted LLM, a workspace
# with a skill that needs a program this machine lacks, MEMORY.md,
# HEARTBEAT.md and history.jsonl; headless Chromium through playwright-core
# (automations_test.mjs) adds a cron job that fires into the page's chat,
# pauses, runs, edits and deletes it, edits HEARTBEAT.md and MEMORY.md, and
# reads the skills and the history; then picks the second agent (research)
# and checks its cron job and MEMORY.md land in its own workspace, not
# main's. The files are checked by the test.
# Args: <build dir> <source dir>. Exit 77 (skipped) without chromium/node.
set -euo pipefail
build="$1"; src="$2"
source "$src/tests/webui/browser_env.sh"
need_browser
install_playwright
home="$(mktemp -d /tmp/nb-webui-auto-XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$home"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$build/tests/support/fake_llm_server" --port 0 > "$home/llm.out" &
pids+=($!)
for _ in $(seq 100); do grep -q '^PORT ' "$home/llm.out" 2>/dev/null && break; sleep 0.1; done
llm_port="$(awk '/^PORT /{print $2}' "$home/llm.out")"
gw_port="$(free_port)"; api_port="$(free_port)"; ws_port="$(free_port)"
ws="$home/workspace"
mkdir -p "$ws/skills/weather" "$ws/memory"
cat > "$ws/skills/weather/SKILL.md" <<'MD'
---
name: weather
description: Today's forecast from the command line
metadata: {"nanobot": {"requires": {"bins": ["nb-no-such-forecast-tool"]}}}
---
Run nb-no-such-forecast-tool for the user's city.
MD
printf -- '- The user likes tea.\n' > "$ws/memory/MEMORY.md"
printf '# Heartbeat\n\n## Active Tasks\n\n' > "$ws/HEARTBEAT.md"
cat > "$ws/memory/history.jsonl" <<'JSONL'
{"cursor": 1, "timestamp": "2026-11-30 09:00", "content": "Talked about green tea and oolong.", "session_key": "telegram:42"}
{"cursor": 2, "timestamp": "2026-12-01 18:30", "content": "Planned a trip to Lisbon.", "session_key": "websocket:web-1"}
JSONL
cat > "$home/config.json" <<JSON
{
  "agents": {"defaults": {"workspace": "$ws", "model": "fake-model", "provider": "custom"},
             "list": [{"id": "research", "workspace": "$home/research-ws"}]},
  "providers": {"custom": {"apiBase": "http://127.0.0.1:$llm_port/v1"}},
  "api": {"port": $api_port},
  "gateway": {"port": $gw_port, "heartbeat": {"enabled": true, "intervalS": 7200}},
  "channels": {"websocket": {"enabled": true, "port": $ws_port}}
}
JSON
"$build/actors/app/nanobot" gateway -c "$home/config.json" > "$home/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$ws_port/" >/dev/null 2>&1 && break
  sleep 0.2
done
status=0
NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/automations_test.mjs" \
  "http://127.0.0.1:$ws_port" "$ws" "$home/research-ws" || status=$?
if [ $status -ne 0 ]; then
  echo "--- gateway log"; tail -40 "$home/gateway.log"
fi
exit $status
