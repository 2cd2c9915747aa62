#!/usr/bin/env bash
# Installs the Debian 12 packages nanobot-cpp builds with, when missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  lld-16        # links the ~50 test executables 4x faster than ld.bfd; packs relocations (DT_RELR)
  libcaf-dev nlohmann-json3-dev libcpp-httplib-dev libspdlog-dev doctest-dev
  libssl-dev libboost-dev libcurl4-openssl-dev
  chromium      # the WebUI test drives it headless (tests/webui)
  libpq-dev postgresql  # the PostgreSQL session store and its tests
  libsqlite3-dev  # the semantic memory index (FTS5 and trigram compiled in)
  libjemalloc-dev # the gateway's allocator (actors/app/allocator.cpp)
  openssl       # the cluster TLS test makes its certificates with the CLI
  bubblewrap    # exec runs every command in a bwrap sandbox
  slirp4netns   # the sandbox's "loopback-denied" network (outbound access)
  libedit-dev   # line editing and history in `nanobot agent`
)
# node/npm run the WebUI test's playwright-core; any install will do (a
# nodesource nodejs already brings npm, and Debian's npm would conflict).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi
# Extra packages a caller needs (deploy/test.sh: the mail servers).
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
