#!/usr/bin/env bash
# `make test` (and CI's .ci/run): every phase of the full check, each timed, with a table of
# the phases' wall-clock seconds at the end (also when a phase fails):
#   deps          scripts/install-deps.sh (quick when everything is there)
#   release build everything in Release in build/ (daemon, tests, benchmarks)
#   asan build    only the unit-test binaries, Debug + AddressSanitizer + UBSan, in build-asan/
#   asan unit     the tests labelled unit under the sanitizers
#   release suite every test on the Release build (SQLite and PostgreSQL); ctest's own
#                 "Label Time Summary" below it gives the seconds per label
# Exits non-zero if anything fails. BUILD / ASAN_BUILD / JOBS / HOOKD_TEST_JOBS as in the
# Makefile. docs/testing.md ("Build speed") records the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
asan_build=${ASAN_BUILD:-build-asan}
jobs=${JOBS:-$(nproc)}
test_jobs=${HOOKD_TEST_JOBS:-2}
cmake_flags=${CMAKE_FLAGS:-}

phase_names=()
phase_seconds=()
run_started=$(date +%s)

print_phases() {
  local status=$?
  echo
  echo "== make test phases (wall-clock seconds) =="
  local i
  for i in "${!phase_names[@]}"; do
    printf '%-16s %6s\n' "${phase_names[$i]}" "${phase_seconds[$i]}"
  done
  printf '%-16s %6s\n' total $(($(date +%s) - run_started))
  if ((status != 0)); then echo "make test: FAILED (exit $status)"; fi
}
trap print_phases EXIT

# phase NAME COMMAND...: runs COMMAND, records its seconds under NAME (also when it fails).
phase() {
  local name=$1
  shift
  echo "== $name =="
  local started status=0
  started=$(date +%s)
  "$@" || status=$?
  phase_names+=("$name")
  phase_seconds+=($(($(date +%s) - started)))
  return $status
}

configure() {  # configure DIR FLAGS...: quick when the tree is configured already
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja "$@" $cmake_flags >/dev/null
}

release_build() {
  configure "$build" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" -j "$jobs"
}

asan_build() {
  configure "$asan_build" -DCMAKE_BUILD_TYPE=Debug -DHOOKD_SANITIZE=ON -DHOOKD_BUILD_BENCH=OFF
  cmake --build "$asan_build" -j "$jobs" --target hookd_unit_tests
}

# The unit-test binaries under the sanitizers, each in $test_jobs gtest shards, $test_jobs at a
# time. Not through ctest: it starts one process per case, and 1,168 sanitizer start-ups took
# 250 s where whole shards take about 60 (docs/testing.md, "Build speed"). A shard prints
# only its failures; its whole output when it fails. (`layering`, the one unit test that is
# no GoogleTest case, checks includes, not code: it runs in the Release suite.)
unit_binaries() {
  ctest --test-dir "$asan_build" -L unit --show-only=json-v1 |
    jq -r '.tests[] | select(any(.command[]; startswith("--gtest_filter"))) | .command[0]' |
    sort -u
}

run_shard() {  # run_shard BINARY SHARDS INDEX
  local binary=$1 log status=0
  log=$(mktemp)
  GTEST_TOTAL_SHARDS=$2 GTEST_SHARD_INDEX=$3 timeout 900 "$binary" --gtest_brief=1 >"$log" 2>&1 ||
    status=$?
  if ((status == 0)); then
    echo "$(basename "$binary") shard $3/$2: $(grep -o 'PASSED.*' "$log")"
  else
    cat "$log"
    echo "FAILED: $(basename "$binary") shard $3/$2 (exit $status)"
  fi
  rm -f "$log"
  return $status
}

asan_unit() {
  local binaries
  mapfile -t binaries < <(unit_binaries)
  ((${#binaries[@]} > 0)) || { echo "asan unit: no unit-test binaries in $asan_build" >&2; return 1; }
  export -f run_shard
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
  local binary index
  for binary in "${binaries[@]}"; do
    for ((index = 0; index < test_jobs; index++)); do printf '%s\0%s\0%s\0' "$binary" "$test_jobs" "$index"; done
  done | xargs -0 -n 3 -P "$test_jobs" bash -c 'run_shard "$@"' _
}

# Label `pg` (the PostgreSQL contract suite, A26, A27) needs no setup: the ctest fixture
# pg_cluster starts a private cluster (scripts/pg-test-cluster.sh) and stops it afterwards.
release_suite() {
  ctest --test-dir "$build" --output-on-failure -j "$test_jobs" --timeout 900
}

phase deps bash scripts/install-deps.sh
phase "release build" release_build
phase "asan build" asan_build
phase "asan unit" asan_unit
phase "release suite" release_suite
