#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) into build-fuzz/
# and runs each for the given seconds (default 60), starting from the seed
# corpus in tests/fuzz/corpus/<target>/ (new inputs go to
# build-fuzz/corpus/<target>/, the seeds stay as committed). A crash, leak
# or timeout stops that target; its reproducer is left in
# build-fuzz/artifacts/<target>/ and the script exits 1 at the end.
# Usage: tests/fuzz/run.sh [seconds per target] [target ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
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
  echo "== $t: ${seconds} s"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t/" \
      "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" \
      >"$build/artifacts/$t/log.txt" 2>&1; then
    failed+=("$t")
    tail -40 "$build/artifacts/$t/log.txt"
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" \
    "$build/artifacts/$t/log.txt" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
echo "all ${#targets[@]} targets ran ${seconds} s without a crash, leak or timeout"
