#!/usr/bin/env bash
# Flaky-test watch: runs the whole suite N times (default 5) in an existing
# build and lists every test that failed in any run, with how often.
# Usage: tests/flaky.sh [N] [build dir, default build]
# Exit code: 0 when no test ever failed, 1 otherwise.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-5}"
build="${2:-$root/build}"
out="$(mktemp -d)"
for i in $(seq 1 "$runs"); do
  echo "flaky: run $i of $runs" >&2
  ctest --test-dir "$build" -j2 --timeout 900 >"$out/run-$i.log" 2>&1
  tail -1 "$out/run-$i.log" >&2
  # ctest lists failures as "	 78 - name (Failed|Timeout|...)" after the summary.
  sed -n '/The following tests FAILED:/,$p' "$out/run-$i.log" \
    | grep -E '^\s+[0-9]+ - ' | sed -E 's/^\s+[0-9]+ - //' >>"$out/failed.txt"
done
if [ ! -s "$out/failed.txt" ]; then
  echo "flaky: no test failed in $runs runs (logs in $out)"
  exit 0
fi
echo "flaky: tests that failed (times out of $runs runs; logs in $out):"
sort "$out/failed.txt" | uniq -c | sort -rn
exit 1
