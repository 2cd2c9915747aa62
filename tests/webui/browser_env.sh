# Sourced by the WebUI's browser tests (run_*_test.sh): what each needs
# before its gateway starts. Expects $build (the build dir).

# Exits 77 (ctest's "skipped") when Chromium, node or npm is missing.
need_browser() {
  chromium="${CHROMIUM:-/usr/bin/chromium}"
  if [ ! -x "$chromium" ] || ! command -v node >/dev/null \
     || ! command -v npm >/dev/null; then
    echo "SKIP: needs $chromium, node and npm (deploy/install-deps.sh installs them)"
    exit 77
  fi
}

# playwright-core into $build/webui-node; sets $mods. The browser tests
# start together in a fresh build dir: the others wait on the lock instead
# of running npm into the same folder at the same time.
install_playwright() {
  mods="$build/webui-node"
  mkdir -p "$mods"
  (
    flock 9
    if [ ! -d "$mods/node_modules/playwright-core" ]; then
      [ -f "$mods/package.json" ] \
        || echo '{"name":"nb-webui-test","private":true}' > "$mods/package.json"
      (cd "$mods" && npm install --no-audit --no-fund --loglevel=error playwright-core@1)
    fi
  ) 9>"$mods/.install.lock"
}
