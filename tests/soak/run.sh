#!/usr/bin/env bash
# The soak: a real gateway under steady mixed load (plain, streamed and
# tool-calling API turns, Telegram and WebSocket chats, a cron job every
# 10 s) for N minutes; RSS, threads, open fds and the inbox journal size
# are sampled each minute and drawn as soak.png (gnuplot).
# Usage: tests/soak/run.sh [minutes, default 60] [output dir, default build/soak]
# SAMPLE_SECONDS overrides the sampling interval (default 60); CONTEXT_WINDOW
# the chats' context window in tokens (default 4096: they archive within
# minutes, as a long-lived chat does over weeks, so the run reaches the
# steady state of a gateway that runs for months; 0 = the gateway default).
# SOAK_SKIP_BUILD=1 uses build/ as it is (a dev build already made; the
# default configures build/ as deploy/build.sh does, a unity build).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
minutes="${1:-60}"
out="${2:-$root/build/soak}"
if [ -z "${SOAK_SKIP_BUILD:-}" ]; then
  "$root/deploy/install-deps.sh" gnuplot-nox   # draws the curve
  "$root/deploy/build.sh" nanobot soak_driver
fi
mkdir -p "$out"
status=0
"$root/build/tests/soak/soak_driver" --minutes "$minutes" --out "$out" \
  --sample-seconds "${SAMPLE_SECONDS:-60}" \
  --context-window "${CONTEXT_WINDOW:-4096}" | tee "$out/summary.txt" || status=$?
gnuplot <<PLOT
set datafile separator ","
set datafile missing "NA"
set terminal pngcairo size 1200,800 noenhanced
set output "$out/soak.png"
set multiplot layout 2,2 title "nanobot gateway soak: $minutes min of mixed load"
set xlabel "minute"
set key off
set title "RSS and heap in use (MB)"
set key top left
plot "$out/samples.csv" using 1:2 skip 1 with linespoints lw 2 title "RSS", \
     "$out/samples.csv" using 1:11 skip 1 with linespoints lw 2 title "RSS (smaps)", \
     "$out/samples.csv" using 1:10 skip 1 with linespoints lw 2 title "heap in use"
set key off
set title "threads"
plot "$out/samples.csv" using 1:3 skip 1 with linespoints lw 2
set title "open fds"
plot "$out/samples.csv" using 1:4 skip 1 with linespoints lw 2
set title "inbox journal (KB; empty without a journal)"
plot "$out/samples.csv" using 1:5 skip 1 with linespoints lw 2
unset multiplot
PLOT
echo "soak: samples in $out/samples.csv, curve in $out/soak.png"
exit $status
