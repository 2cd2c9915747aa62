#!/usr/bin/env bash
# Installs what is missing, builds everything (Release, 2 jobs) and runs the
# whole test suite with ctest. Exit code: ctest's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The Email channel is tested against real mail servers on loopback; the
# packages' own system services are not wanted, so they are stopped again.
"$root/deploy/install-deps.sh" dovecot-imapd dovecot-submissiond opensmtpd
if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
  systemctl disable --now dovecot opensmtpd >/dev/null 2>&1 || true
fi
"$root/deploy/build.sh"
cd "$root/build"
ctest -j2 --output-on-failure --timeout 900
