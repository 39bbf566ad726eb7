#!/usr/bin/env bash
# `make check`: the quick suite to run between commits (docs/testing.md). On the Release
# build in build/: the unit tests, then one end-to-end smoke of each of hookd's jobs against
# the real binary on port 0:
#   outbound       a signed delivery that is retried after two 503s, then delivered
#   inbound        a verified event stored, answered 200 and forwarded signed
#   idempotency    a client that times out and retries with its key gets the stored answer,
#                  and the upstream saw one call
#   reconciliation a run that finds lost callbacks in the sender's feed and forwards each once
# Builds only what these need (the unit-test binaries, the daemon, the e2e binary).
# `make test` is the whole check (ASan, every e2e, interop, PostgreSQL, soak).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
jobs=${JOBS:-$(nproc)}
test_jobs=${HOOKD_TEST_JOBS:-2}

# The smoke cases, one per job (ctest names are Suite.Case).
smoke_tests=(
  DeliveryE2E.A01_RetriesTwo503sThenDelivers
  InboundE2E.VerifiedEventIsStoredAnswered200AndForwardedSigned
  ProxyE2E.ClientThatTimesOutAndRetriesCreatesOneResource
  ReconcileE2E.LostCallbacksAreFoundInTheSendersFeedAndForwardedOnce
)

started=$(date +%s)
bash scripts/install-deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_FLAGS:-} >/dev/null
cmake --build "$build" -j "$jobs" --target hookd_unit_tests hookd hookd_e2e_tests

echo "== unit tests (Release) =="
ctest --test-dir "$build" -L unit -j "$test_jobs" --timeout 300 --output-on-failure

echo "== end-to-end smoke: one per job =="
regex=$(printf '^%s$|' "${smoke_tests[@]}")
regex=${regex%|}
regex=${regex//./\\.}
count=$(ctest --test-dir "$build" -N -R "$regex" | sed -n 's/^Total Tests: //p')
if [[ "$count" != "${#smoke_tests[@]}" ]]; then
  # A renamed case must not shrink the smoke silently.
  echo "check: expected ${#smoke_tests[@]} smoke tests, ctest finds ${count:-0}" >&2
  exit 1
fi
ctest --test-dir "$build" -R "$regex" -j "$test_jobs" --timeout 300 --output-on-failure
echo "check: passed in $(($(date +%s) - started)) s"
