#!/usr/bin/env bash
# The WebUI's first-run setup and its auth in a real browser (issue 20,
# parts 1 and 7): a real gateway, the scripted LLM behind it (it wants an
# API key), headless Chromium through playwright-core.
#   setup: a gateway with no usable provider opens the setup page; the LLM's
#          URL, a wrong key (the provider's error shows), the right key, a
#          model from its /models, Test, Save; then a chat answers, with the
#          same gateway process, and config.json holds the provider (0600)
#          and the user's own keys.
#   auth:  the channel bound to this machine's non-loopback address with a
#          token: without it every page, file, /api/* call and handshake is
#          refused; foreign Origins are refused; the login form lets the
#          browser in without the page ever holding the token.
# Args: <build dir> <source dir> setup|auth. Exit 77 (skipped) without
# chromium/node, or (auth) without a non-loopback address.
set -euo pipefail
build="$1"; src="$2"; mode="$3"
source "$src/tests/webui/browser_env.sh"
need_browser
bind_host=127.0.0.1
if [ "$mode" = auth ]; then
  # The first address `hostname -I` lists that is IPv4 and not loopback.
  bind_host="$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -1 || true)"
  if [ -z "$bind_host" ]; then
    echo "SKIP: this machine has no non-loopback IPv4 address to bind the channel to"
    exit 77
  fi
fi
install_playwright
home="$(mktemp -d /tmp/nb-webui-setup-XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$home"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' "$1"; }

key="sk-test-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
"$build/tests/support/fake_llm_server" --port 0 --api-key "$key" > "$home/llm.out" &
pids+=($!)
for _ in $(seq 100); do grep -q '^PORT ' "$home/llm.out" 2>/dev/null && break; sleep 0.1; done
llm_url="http://127.0.0.1:$(awk '/^PORT /{print $2}' "$home/llm.out")/v1"
gw_port="$(free_port 127.0.0.1)"; api_port="$(free_port 127.0.0.1)"; ws_port="$(free_port "$bind_host")"
token="tok-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
mkdir -p "$home/workspace"
if [ "$mode" = setup ]; then
  # No provider at all, and keys of the user's own that must survive.
  cat > "$home/config.json" <<JSON
{
  "myNotes": {"owner": "me", "list": [1, 2, 3]},
  "agents": {"defaults": {"workspace": "$home/workspace"}},
  "api": {"port": $api_port},
  "gateway": {"port": $gw_port},
  "channels": {"websocket": {"enabled": true, "port": $ws_port}},
  "zzAfterEverything": true
}
JSON
else
  cat > "$home/config.json" <<JSON
{
  "agents": {"defaults": {"workspace": "$home/workspace", "model": "fake-model",
                          "provider": "custom"}},
  "providers": {"custom": {"apiBase": "$llm_url", "apiKey": "$key"}},
  "api": {"port": $api_port},
  "gateway": {"port": $gw_port},
  "channels": {"websocket": {"enabled": true, "host": "$bind_host", "port": $ws_port,
                             "token": "$token"}}
}
JSON
fi
chmod 0644 "$home/config.json"
# No key from this machine's environment may make a provider usable.
env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u OPENROUTER_API_KEY -u DEEPSEEK_API_KEY \
  "$build/actors/app/nanobot" gateway -c "$home/config.json" > "$home/gateway.log" 2>&1 &
gw_pid=$!
pids+=($gw_pid)
for _ in $(seq 150); do
  curl -s -o /dev/null "http://$bind_host:$ws_port/login.html" 2>/dev/null && break
  sleep 0.2
done
status=0
NB_NODE_MODULES="$mods/node_modules" node "$src/tests/webui/setup_test.mjs" \
  "$mode" "http://$bind_host:$ws_port" "$llm_url" "$key" "$token" || status=$?
if [ "$mode" = setup ] && [ $status -eq 0 ]; then
  kill -0 "$gw_pid" || { echo "FAIL: the gateway is gone"; status=1; }
  [ "$(grep -c 'gateway ready' "$home/gateway.log")" = 1 ] || { echo "FAIL: the gateway restarted"; status=1; }
  python3 - "$home/config.json" "$llm_url" "$key" <<'PY' || status=1
import json, os, stat, sys
path, url, key = sys.argv[1:]
mode = stat.S_IMODE(os.stat(path).st_mode)
cfg = json.load(open(path))
problems = []
if mode != 0o600: problems.append(f"mode {mode:o}, not 600")
if list(cfg)[0] != "myNotes" or cfg["myNotes"] != {"owner": "me", "list": [1, 2, 3]}:
    problems.append("myNotes lost or moved")
if cfg.get("zzAfterEverything") is not True: problems.append("zzAfterEverything lost")
d = cfg["agents"]["defaults"]
if d.get("provider") != "custom" or d.get("model") != "fake-model": problems.append(f"defaults: {d}")
p = cfg["providers"]["custom"]
if p.get("apiBase") != url or p.get("apiKey") != key: problems.append("providers.custom wrong")
if cfg["channels"]["websocket"]["enabled"] is not True: problems.append("channels changed")
if problems:
    print("FAIL: config.json:", "; ".join(problems)); sys.exit(1)
print(f"config.json: mode {mode:o}, provider custom at {url}, model fake-model, user keys kept")
PY
fi
if grep -q -- "$key" "$home/gateway.log"; then echo "FAIL: the API key is in the gateway log"; status=1; fi
if [ $status -ne 0 ]; then
  echo "--- gateway log"; tail -40 "$home/gateway.log"
fi
exit $status
