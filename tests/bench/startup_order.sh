#!/usr/bin/env bash
# Regenerates actors/app/startup_order.txt, the gateway's link order: the
# functions of our binary that a start (API, WebUI and a Telegram channel
# long polling a fake Bot API), a WebUI page and a few API turns run: the start's first, then what the turns add. lld puts them first in the
# text (--symbol-ordering-file), so the pages an idle gateway keeps mapped
# hold code it runs instead of neighbours it never calls (the kernel maps
# text 64 KB at a time around each fault).
# A stale list only costs memory: names that no longer exist are skipped.
# Run it after large changes to what starts or to the turn path.
# Usage: tests/bench/startup_order.sh [build dir, default build/]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
"$root/deploy/install-deps.sh" valgrind
if [ ! -x "$build/actors/app/nanobot" ] \
   || [ ! -x "$build/tests/support/fake_llm_server" ] \
   || [ ! -x "$build/tests/platforms/fake_telegram_server" ]; then
  "$root/deploy/build.sh" nanobot fake_llm_server fake_telegram_server
  build="$root/build"
fi
work="$(mktemp -d /tmp/nb-order-XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"$build/tests/support/fake_llm_server" > "$work/llm.out" &
pids+=($!)
for _ in $(seq 100); do
  grep -q '^PORT ' "$work/llm.out" 2>/dev/null && break
  sleep 0.1
done
llm_port="$(awk '/^PORT /{print $2}' "$work/llm.out")"
# A chat channel's start and its idle long poll belong to the order too.
# (it serves until its stdin ends: a coprocess holds it open)
coproc TG { "$build/tests/platforms/fake_telegram_server" --token 123:ABC; }
pids+=($TG_PID)
read -r tg_line <&"${TG[0]}"
tg_url="${tg_line#URL }"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
api_port="$(free_port)"
gw_port="$(free_port)"
ui_port="$(free_port)"
mkdir -p "$work/ws"
cat > "$work/config.json" <<JSON
{"agents": {"defaults": {"workspace": "$work/ws", "model": "bench",
                         "provider": "custom"}},
 "providers": {"custom": {"apiBase": "http://127.0.0.1:$llm_port/v1"}},
 "api": {"port": $api_port}, "gateway": {"port": $gw_port},
 "channels": {"websocket": {"enabled": true, "port": $ui_port},
              "telegram": {"enabled": true, "token": "123:ABC",
                           "apiBase": "$tg_url", "allowFrom": ["*"]}}}
JSON

HOME="$work" valgrind --tool=callgrind --demangle=no \
  --callgrind-out-file="$work/callgrind.out" \
  "$build/actors/app/nanobot" gateway -c "$work/config.json" \
  > "$work/gateway.log" 2>&1 &
gateway=$!
pids+=($gateway)
ready=""
for _ in $(seq 600); do
  if curl -sf "http://127.0.0.1:$api_port/health" > /dev/null; then
    ready=1
    break
  fi
  sleep 0.1
done
[ -n "$ready" ] || { cat "$work/gateway.log" >&2; exit 1; }
curl -sf "http://127.0.0.1:$ui_port/" > /dev/null || true
# What the start ran, dumped apart from what the turns add, so that the
# start's functions come first and pack densely.
sleep 2
callgrind_control -d "$gateway" > /dev/null 2>&1
for i in 1 2 3; do
  curl -sf "http://127.0.0.1:$api_port/v1/chat/completions" \
    -H 'Content-Type: application/json' \
    -d "{\"model\":\"bench\",\"messages\":[{\"role\":\"user\",\"content\":\"hello $i\"}]}" \
    > /dev/null
done
sleep 3
kill -INT "$gateway"
wait "$gateway" || true

out="$root/actors/app/startup_order.txt"
python3 - "$build/actors/app/nanobot" "$out" "$work"/callgrind.out.1 \
  "$work/callgrind.out" <<'PY'
import os, re, sys
binary, out, *profiles = sys.argv[1:]
binary = os.path.realpath(binary)
seen, order = set(), []


def functions_run(profile):
    """Our binary's functions in a callgrind profile (names compressed as
    ob=(id) name / fn=(id) name, the name given at first use only)."""
    objects, functions, current = {}, {}, None
    for line in open(profile, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if m:
            kind, ident, name = m.groups()
            if name:
                objects[ident] = name
            if kind == "ob":
                current = os.path.realpath(objects[ident])
            continue
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if not m:
            continue
        kind, ident, name = m.groups()
        if name:
            functions[ident] = name
        if kind == "fn" and current == binary:
            # A recursion level is marked name'N: the function is the name.
            yield functions[ident].split("'")[0]


for profile in profiles:
    for name in functions_run(profile):
        if name not in seen:
            seen.add(name)
            order.append(name)
with open(out, "w") as f:
    f.write("# Made by tests/bench/startup_order.sh: the gateway's functions that a\n"
            "# start and a WebUI page run, then those three API turns add, for\n"
            "# lld's --symbol-ordering-file (actors/app/CMakeLists.txt). Do not edit.\n")
    f.write("\n".join(order) + "\n")
print(f"{len(order)} functions -> {out}")
PY
