#!/usr/bin/env bash
# The WebUI's sessions page and temporary chats in a real browser (issue 20,
# part 3): a real gateway, the scripted LLM behind it (every turn calls the
# list_dir tool, then answers "done: ..."), headless Chromium through
# playwright-core (sessions_test.mjs).
#   1. a chat on the API channel, then one in the WebUI: both listed, the
#      WebUI's first, grouped by channel, searchable; the WebUI chat's
#      transcript shows its tool call; the API chat renamed; deleting asks
#      first, then the file is gone.
#   2. a temporary chat answered, then cleared with /new; a stored API chat
#      cleared with /new as the control (it reaches history.jsonl).
#   3. the gateway restarted: the rename is still there.
#   4. no file anywhere under the home holds the temporary chat's words or
#      its id, and memory (history.jsonl, MEMORY.md) never saw them.
# Args: <build dir> <source dir>. Exit 77 (skipped) without chromium/node.
set -euo pipefail
build="$1"; src="$2"
source "$src/tests/webui/browser_env.sh"
need_browser
install_playwright
# The home holds only what the gateway writes; logs live beside it.
home="$(mktemp -d /tmp/nb-webui-sessions-XXXXXX)"
logs="$(mktemp -d /tmp/nb-webui-sessions-logs-XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$home" "$logs"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$build/tests/support/fake_llm_server" --port 0 --tool-then-answer --tool list_dir \
  --tool-args '{"path":"."}' > "$logs/llm.out" &
pids+=($!)
for _ in $(seq 100); do grep -q '^PORT ' "$logs/llm.out" 2>/dev/null && break; sleep 0.1; done
llm_url="http://127.0.0.1:$(awk '/^PORT /{print $2}' "$logs/llm.out")/v1"
gw_port="$(free_port)"; api_port="$(free_port)"; ws_port="$(free_port)"
mkdir -p "$home/workspace"
cat > "$home/config.json" <<JSON
{
  "agents": {"defaults": {"workspace": "$home/workspace", "model": "fake-model",
                          "provider": "custom"}},
  "providers": {"custom": {"apiBase": "$llm_url", "apiKey": "sk-none"}},
  "api": {"port": $api_port},
  "gateway": {"port": $gw_port},
  "channels": {"websocket": {"enabled": true, "port": $ws_port}}
}
JSON
gw_pid=0
start_gateway() {
  env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u OPENROUTER_API_KEY \
    "$build/actors/app/nanobot" gateway -c "$home/config.json" >> "$logs/gateway.log" 2>&1 &
  gw_pid=$!
  pids+=($gw_pid)
  for _ in $(seq 150); do
    curl -sf -o /dev/null "http://127.0.0.1:$ws_port/api/sessions" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "FAIL: the gateway did not come up"; tail -30 "$logs/gateway.log"; exit 1
}
api_chat() { # session_id text
  curl -sf -m 60 "http://127.0.0.1:$api_port/v1/chat/completions" -H 'Content-Type: application/json' \
    -d "{\"model\":\"fake-model\",\"session_id\":\"$1\",\"messages\":[{\"role\":\"user\",\"content\":\"$2\"}]}" \
    > /dev/null || { echo "FAIL: the API chat $1 got no answer"; tail -30 "$logs/gateway.log"; exit 1; }
}
status=0
start_gateway
api_chat apichat1 "beta api question"
sleep 1.1 # a later modification time for the WebUI chat
secret="zebra-temporary-$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/sessions_test.mjs" \
  first "http://127.0.0.1:$ws_port" "$secret" > "$logs/node1.out" || status=$?
cat "$logs/node1.out"
temp_id="$(awk '/^TEMP_CHAT /{print $2}' "$logs/node1.out")"
# The control: a stored chat cleared with /new is archived into memory.
api_chat apichat2 "gamma control note"
api_chat apichat2 "/new"
for _ in $(seq 150); do
  grep -qs "gamma control note" "$home/workspace/memory/history.jsonl" && break
  sleep 0.2
done
if ! grep -qs "gamma control note" "$home/workspace/memory/history.jsonl"; then
  echo "FAIL: the control chat never reached history.jsonl (the memory check would prove nothing)"
  status=1
fi
if [ $status -eq 0 ]; then
  kill -TERM "$gw_pid"; wait "$gw_pid" 2>/dev/null || true
  start_gateway
  NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/sessions_test.mjs" \
    restarted "http://127.0.0.1:$ws_port" "$secret" || status=$?
  kill -TERM "$gw_pid"; wait "$gw_pid" 2>/dev/null || true
fi
if [ $status -eq 0 ]; then
  python3 - "$home" "$secret" "$temp_id" <<'PY' || status=1
import os, sys
home, secret, temp_id = sys.argv[1:]
if not temp_id.startswith("tmp-"):
    print("FAIL: no temporary chat id"); sys.exit(1)
walked, bad = 0, []
for root, dirs, files in os.walk(home):
    for name in dirs + files:
        if temp_id in name: bad.append(os.path.join(root, name))
    for name in files:
        path = os.path.join(root, name)
        walked += 1
        try:
            data = open(path, "rb").read()
        except OSError:
            continue
        if secret.encode() in data or temp_id.encode() in data:
            bad.append(path)
if bad:
    print("FAIL: the temporary chat left traces in:", bad); sys.exit(1)
hist = os.path.join(home, "workspace/memory/history.jsonl")
if "gamma control note" not in open(hist).read():
    print("FAIL: control missing"); sys.exit(1)
print(f"walked {walked} files under the home: no trace of {temp_id} or its words; "
      "history.jsonl holds the control chat only")
PY
fi
if [ $status -ne 0 ]; then
  echo "--- gateway log"; tail -40 "$logs/gateway.log"
  # The session files (base64url of the key) and when each was written.
  echo "--- session files"
  python3 - "$home/sessions" <<'PY' || true
import base64, datetime, os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if not f.endswith(".jsonl"): continue
        st = os.stat(os.path.join(root, f))
        stem = f[:-6]
        key = base64.urlsafe_b64decode(stem + "=" * (-len(stem) % 4)).decode(errors="replace")
        print(datetime.datetime.fromtimestamp(st.st_mtime).strftime("%H:%M:%S.%f")[:-3], st.st_size, key)
PY
fi
exit $status
