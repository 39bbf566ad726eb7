#!/usr/bin/env bash
# `make tsan`: runs the test binaries of hookd's concurrent parts under ThreadSanitizer
# (build-tsan/, -DHOOKD_TSAN=ON): the HTTP server and client (net), the dispatcher and the
# publish batcher's store side (outbound), the forwarder and the inbox batcher (inbound), the
# idempotency gateway's committer (proxy) and the SQLite store with its group commit (store).
# Any report fails the run (halt_on_error). `scripts/tsan.sh --targets` prints the targets.
# Suppressions: scripts/tsan.supp, each with its reason (docs/testing.md, "ThreadSanitizer").
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(hookd_net_tests hookd_outbound_tests hookd_inbound_tests hookd_proxy_tests hookd_store_tests)
if [[ "${1:-}" == --targets ]]; then
  echo "${targets[*]}"
  exit 0
fi
build=${1:-build-tsan}
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4 suppressions=$PWD/scripts/tsan.supp"
failed=()
for t in "${targets[@]}"; do
  echo "== $t under ThreadSanitizer =="
  # Benchmark-like cases (Throughput) are disabled in every build; the rest run as in ctest.
  if ! "$build/tests/$t" --gtest_brief=1; then failed+=("$t"); fi
done
if ((${#failed[@]})); then
  echo "tsan: FAILED: ${failed[*]}"
  exit 1
fi
echo "tsan: ${#targets[@]} test binaries clean"
