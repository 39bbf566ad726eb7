#!/usr/bin/env bash
# Runs every test: first the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/), then the whole suite on the Release build (build/), whose ctest summary
# closes the run. Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${HOOKD_TEST_JOBS:-2}

echo "== unit tests under ASan+UBSan =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan -L unit --output-on-failure -j "$jobs" --timeout 300

# Label `pg` (the PostgreSQL contract suite, A26, A27) needs no setup: the ctest fixture
# pg_cluster starts a private cluster (scripts/pg-test-cluster.sh) and stops it afterwards.
echo "== every test on the Release build (SQLite and PostgreSQL) =="
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900
