#!/usr/bin/env bash
# Runs hookd's benchmarks on the Release build and prints the figures recorded in
# docs/benchmarks.md. Bounded: each part stops by itself; traffic stays on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}

echo "== machine =="
echo "cores: $(nproc); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); commit: $(git rev-parse --short HEAD 2>/dev/null || echo none)"

echo "== micro-benchmarks (Google Benchmark) =="
"$build/bench/hookd_micro_bench" --benchmark_min_time=0.2 "$@"
