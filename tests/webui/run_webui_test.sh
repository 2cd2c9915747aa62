#!/usr/bin/env bash
# The WebUI in a real browser: a gateway with the WebSocket channel against
# the scripted LLM, driven by headless Chromium through playwright-core.
# Args: <build dir> <source dir> [cluster]. "cluster": the same through a
# cluster gateway node (channels, front) and one agent node. Exit 77 (skipped) when chromium or node
# is missing; deploy/install-deps.sh installs both.
set -euo pipefail
build="$1"; src="$2"; mode="${3:-single}"
source "$src/tests/webui/browser_env.sh"
need_browser
install_playwright
home="$(mktemp -d /tmp/nb-webui-XXXXXX)"
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
mkdir -p "$home/workspace"
cat > "$home/config.json" <<JSON
{
  "agents": {"defaults": {"workspace": "$home/workspace", "model": "fake-model",
                          "provider": "custom"}},
  "providers": {"custom": {"apiBase": "http://127.0.0.1:$llm_port/v1"}},
  "api": {"port": $api_port},
  "gateway": {"port": $gw_port},
  "channels": {"websocket": {"enabled": true, "port": $ws_port}},
  "cluster": {"nodeId": "gateway-1", "listen": "127.0.0.1:$(free_port)"}
}
JSON
if [ "$mode" = cluster ]; then
  listen="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["listen"])' "$home/config.json")"
  mkdir -p "$home/agent"
  python3 - "$home/config.json" "$home/agent/config.json" "$listen" <<'PY'
import json, sys
cfg = json.load(open(sys.argv[1]))
cfg["cluster"] = {"nodeId": "agent-1", "listen": "127.0.0.1:0", "peers": [sys.argv[3]]}
cfg["channels"] = {}
json.dump(cfg, open(sys.argv[2], "w"))
PY
  "$build/actors/app/nanobot" node --role gateway -c "$home/config.json" > "$home/gateway.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 150); do grep -q 'gateway node gateway-1 ready' "$home/gateway.log" && break; sleep 0.2; done
  "$build/actors/app/nanobot" node --role agent -c "$home/agent/config.json" > "$home/agent.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 150); do grep -q 'agent node agent-1 takes' "$home/gateway.log" && break; sleep 0.2; done
else
  "$build/actors/app/nanobot" gateway -c "$home/config.json" > "$home/gateway.log" 2>&1 &
  pids+=($!)
fi
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$ws_port/" >/dev/null 2>&1 && break
  sleep 0.2
done
status=0
NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/webui_test.mjs" \
  "http://127.0.0.1:$ws_port" "$mode" || status=$?
# `channels status` against the running gateway, then with it stopped.
live="$("$build/actors/app/nanobot" channels status -c "$home/config.json")" || status=$?
echo "$live"
echo "$live" | grep -Eq '^websocket +connected ' || { echo "FAIL: channels status: no connected websocket"; status=1; }
kill "${pids[1]}"; wait "${pids[1]}" 2>/dev/null || true
offline="$("$build/actors/app/nanobot" channels status -c "$home/config.json")" || status=$?
echo "$offline"
echo "$offline" | grep -q 'gateway not running' || { echo "FAIL: channels status without a gateway"; status=1; }
echo "$offline" | grep -Eq '^websocket +enabled ' || { echo "FAIL: channels status: websocket not listed as enabled"; status=1; }
if [ $status -ne 0 ]; then
  echo "--- gateway log"; tail -40 "$home/gateway.log"
  [ -f "$home/agent.log" ] && { echo "--- agent log"; tail -20 "$home/agent.log"; }
fi
exit $status
