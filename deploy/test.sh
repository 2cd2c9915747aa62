#!/usr/bin/env bash
# Installs what is missing, builds everything (Release, 2 jobs) and runs the
# whole test suite with ctest. Exit code: ctest's.
# --sanitize: the same suite built with ASan + UBSan into build-sanitize/
# (much slower; on demand, not part of CI); reports fail the tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The Email channel is tested against real mail servers on loopback, and
# promtool (from prometheus) lints /metrics; the packages' own system
# services are not wanted, so they are stopped again.
"$root/deploy/install-deps.sh" dovecot-imapd dovecot-submissiond opensmtpd \
  prometheus
if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
  systemctl disable --now dovecot opensmtpd prometheus >/dev/null 2>&1 || true
fi
if [ "${1:-}" = "--sanitize" ]; then
  build="$root/build-sanitize"
  # -O1 -g1 (line tables): what the sanitizers' authors advise, and half
  # the compile time of -O2 -g (45 s against 22 s for one unity batch).
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DNB_SANITIZE=ON -DNB_UNITY=ON >/dev/null
  cmake --build "$build" -j2
  cd "$build"
  # Child processes (the nanobot binary in process tests) inherit these.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/deploy/ubsan.supp:${UBSAN_OPTIONS:-}"
  export LSAN_OPTIONS="suppressions=$root/deploy/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
  ctest -j2 --output-on-failure --timeout 1800
  exit $?
fi
"$root/deploy/build.sh"
cd "$root/build"
# Three cases at a time on two cores: most cases wait on sockets and child
# processes (a whole -j2 run used 3.3 min of CPU in 4.75 min). Measured on
# this suite: -j2 285 s, -j3 195/197 s (both runs passed), -j4 157/160 s
# (a sandbox case failed once: too tight). The long cases start first
# (their COST, tests/CMakeLists.txt).
ctest -j3 --output-on-failure --timeout 900
