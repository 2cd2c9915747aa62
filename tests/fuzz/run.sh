#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/
# and runs each for the given seconds (default 60), starting from the seed
# corpus in tests/fuzz/corpus/<target>/ (new inputs go to
# build-fuzz/corpus/<target>/, the seeds stay as committed). A crash, leak
# or timeout stops that target; its reproducer is left in
# build-fuzz/artifacts/<target>/ and the script exits 1 at the end.
# Usage: tests/fuzz/run.sh [--cpu] [seconds per target] [target ...]
# --cpu: the seconds are the fuzzer's own CPU time, not the wall clock, so a
# run beside other work (at `nice`) still gets its full share.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cpu_time=false
if [ "${1:-}" = "--cpu" ]; then
  cpu_time=true
  shift
fi
seconds="${1:-60}"
shift || true
"$root/deploy/install-deps.sh"
"$root/tests/fuzz/install-deps.sh"
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DNB_FUZZ=ON >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in "$root"/tests/fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
cmake --build "$build" -j2 --target "${targets[@]/#/fuzz_}"
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  echo "== $t: ${seconds} s$($cpu_time && echo ' of CPU time')"
  wall="$seconds"
  $cpu_time && wall=$((seconds * 100))
  touch "$build/artifacts/$t/.started" # reproducers newer than this are new
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$wall" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t/" \
      "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" \
      >"$build/artifacts/$t/log.txt" 2>&1 &
  pid=$!
  interrupted=false
  if $cpu_time; then
    ticks_per_s=$(getconf CLK_TCK)
    while kill -0 "$pid" 2>/dev/null; do
      sleep 5
      # utime + stime of the fuzzer process, in clock ticks.
      ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
      if [ $((ticks / ticks_per_s)) -ge "$seconds" ]; then
        kill -INT "$pid" 2>/dev/null || true
        interrupted=true
        break
      fi
    done
  fi
  status=0
  wait "$pid" || status=$?
  # libFuzzer 14 ends an interrupted run with exit code 72 (it has no flag
  # to change that): our own interrupt, the CPU budget spent, is a clean
  # end. Anything else, or a reproducer left behind, is a finding.
  if $interrupted && [ "$status" -eq 72 ]; then
    status=0
  fi
  if [ "$status" -ne 0 ] || [ -n "$(find "$build/artifacts/$t" -name '*-*' \
                                      -newer "$build/artifacts/$t/.started")" ]; then
    failed+=("$t")
    tail -40 "$build/artifacts/$t/log.txt"
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE|interrupted" \
    "$build/artifacts/$t/log.txt" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
echo "all ${#targets[@]} targets ran ${seconds} s without a crash, leak or timeout"
