#!/usr/bin/env bash
# The WebUI's settings pages and context use in a real browser (issue 20,
# parts 2 and 6): a real gateway with the scripted LLM behind it, a second
# WebSocket channel ("side") to restart, a disabled Telegram channel whose
# token must never reach the browser, the reference MCP server
# (server-everything, as tests/mcp uses it) to test, headless Chromium
# through playwright-core. See settings_test.mjs for what is checked.
# Args: <build dir> <source dir>. Exit 77 (skipped) without chromium/node/npm.
set -euo pipefail
build="$1"; src="$2"
source "$src/tests/webui/browser_env.sh"
need_browser
install_playwright
# The reference MCP server, installed like tests/mcp's fixture does.
npm_dir="$build/mcp-npm"
everything="$npm_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
mkdir -p "$npm_dir"
flock "$npm_dir/.lock" sh -c "test -f '$everything' || npm install --prefix '$npm_dir' --no-audit --no-fund --loglevel=error @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31" > "$npm_dir/install.log" 2>&1 \
  || { echo "FAIL: npm install of the reference MCP server; see $npm_dir/install.log"; exit 1; }

home="$(mktemp -d /tmp/nb-webui-settings-XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$home"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rand() { head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

key="sk-test-$(rand)"
tg_token="123456:tg-$(rand)"
"$build/tests/support/fake_llm_server" --port 0 --api-key "$key" > "$home/llm.out" &
pids+=($!)
for _ in $(seq 100); do grep -q '^PORT ' "$home/llm.out" 2>/dev/null && break; sleep 0.1; done
llm_url="http://127.0.0.1:$(awk '/^PORT /{print $2}' "$home/llm.out")/v1"
gw_port="$(free_port)"; api_port="$(free_port)"; ws_port="$(free_port)"; side_port="$(free_port)"
mkdir -p "$home/workspace"
cat > "$home/config.json" <<JSON
{
  "myNotes": {"owner": "me"},
  "agents": {"defaults": {"workspace": "$home/workspace", "model": "fake-model",
                          "provider": "custom", "contextWindowTokens": 32000}},
  "providers": {"custom": {"apiBase": "$llm_url", "apiKey": "$key"}},
  "api": {"port": $api_port},
  "gateway": {"port": $gw_port},
  "channels": {
    "websocket": {"enabled": true, "port": $ws_port},
    "side": {"type": "websocket", "enabled": true, "port": $side_port, "allowFrom": ["*"]},
    "telegram": {"enabled": false, "token": "$tg_token", "allowFrom": ["42"]}
  }
}
JSON
env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u OPENROUTER_API_KEY -u DEEPSEEK_API_KEY \
  "$build/actors/app/nanobot" gateway -c "$home/config.json" > "$home/gateway.log" 2>&1 &
gw_pid=$!
pids+=($gw_pid)
for _ in $(seq 150); do
  curl -s -o /dev/null "http://127.0.0.1:$ws_port/login.html" 2>/dev/null && break
  sleep 0.2
done
status=0
NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/settings_test.mjs" \
  "http://127.0.0.1:$ws_port" "$side_port" "$home/config.json" "$everything" "$key" "$tg_token" \
  "$build/tests/platforms/fake_telegram_server" "$home/helper-ws" || status=$?
if [ $status -eq 0 ]; then
  kill -0 "$gw_pid" || { echo "FAIL: the gateway is gone"; status=1; }
  [ "$(grep -c 'gateway ready' "$home/gateway.log")" = 1 ] || { echo "FAIL: the gateway restarted"; status=1; }
  # Only the side channel restarted; the WebUI's own channel started once.
  starts() { grep -c "channel $1 started" "$home/gateway.log" || true; }
  [ "$(starts side)" = 2 ] || { echo "FAIL: channel side started $(starts side) times, not 2"; status=1; }
  [ "$(starts websocket)" = 1 ] || { echo "FAIL: channel websocket started $(starts websocket) times"; status=1; }
  [ "$(starts tg2)" = 1 ] || { echo "FAIL: the added channel tg2 started $(starts tg2) times, not 1"; status=1; }
  mode="$(stat -c %a "$home/config.json")"
  [ "$mode" = 600 ] || { echo "FAIL: config.json mode $mode"; status=1; }
  grep -q '"myNotes"' "$home/config.json" || { echo "FAIL: the user's own key is gone"; status=1; }
  grep -q "$tg_token" "$home/config.json" || { echo "FAIL: the saved Telegram token was lost"; status=1; }
fi
# The agent created in the form answers a chat bound to it once the gateway
# restarts (agents.list and agents.bindings are read at start; the page
# said so): the side channel is bound to "helper".
if [ $status -eq 0 ]; then
  echo "stopping the gateway at $(date +%T)"
  kill "$gw_pid"; wait "$gw_pid" 2>/dev/null || true
  echo "stopped at $(date +%T)"
  env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u OPENROUTER_API_KEY -u DEEPSEEK_API_KEY \
    "$build/actors/app/nanobot" gateway -c "$home/config.json" >> "$home/gateway.log" 2>&1 &
  gw_pid=$!
  pids+=($gw_pid)
  for _ in $(seq 150); do
    curl -s -o /dev/null "http://127.0.0.1:$ws_port/login.html" 2>/dev/null && break
    sleep 0.2
  done
  reply="$(NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/ws_say.mjs" "$side_port" alice "hello helper")" \
    || { echo "FAIL: no answer on the channel bound to helper"; status=1; }
  # The scripted model echoes the whole user message: the text, then the
  # runtime context the gateway adds below it.
  [ "${reply%%$'\n'*}" = "echo: hello helper" ] || { echo "FAIL: helper answered '$reply'"; status=1; }
  # Its session key is helper:side:<chat> (an agent's own key space).
  grep -rlq --include='*.jsonl' '"helper:side:' "$home" \
    || { echo "FAIL: no session of agent helper under $home"; status=1; }
  [ -d "$home/helper-ws" ] || { echo "FAIL: helper's workspace was not made"; status=1; }
  [ $status -eq 0 ] && echo "agent helper answered the chat bound to it after the restart: $reply"
fi
for s in "$key" "$tg_token"; do
  if grep -q -- "$s" "$home/gateway.log"; then echo "FAIL: a secret is in the gateway log"; status=1; fi
done
if [ $status -ne 0 ]; then
  echo "--- gateway log"; tail -40 "$home/gateway.log"
fi
exit $status
