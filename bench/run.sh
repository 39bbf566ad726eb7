#!/usr/bin/env bash
# Runs hookd's benchmarks on the Release build and prints the figures recorded in
# docs/benchmarks.md. Bounded: each part stops by itself (every wait has a timeout, every
# background process is killed on exit); traffic stays on loopback.
#
# Parts: micro-benchmarks (Google Benchmark), the ceiling (load generator → sink), and, when
# `hookd serve` exists, the end-to-end scenarios of issue 3 (publish through the API, deliver
# to the sink). Arguments are passed to the micro-benchmarks. Knobs (environment):
#   SKIP_MICRO=1          skip the micro-benchmarks
#   SECONDS_PER_RUN=10    length of each load run
#   BACKLOG_MESSAGES=200000, BACKLOG_PUBLISH_SECONDS=120, BACKLOG_DRAIN_SECONDS=180
#   SCENARIOS="hookd_1_endpoint hookd_1_endpoint_keyed hookd_10_endpoints hookd_1000_per_s
#              hookd_backlog"  which hookd scenarios to run (default: all)
#   CONNECTIONS=32        load generator connections in the max-rate runs
#   SKIP_PROXY=1          skip the idempotency gateway part (bench/run_proxy.sh, run last
#                         with REPEAT=${PROXY_REPEAT:-1}, ${PROXY_CALLS:-20000} calls,
#                         CONNECTIONS=${PROXY_CONNECTIONS:-64})
#   SKIP_RETENTION=1      skip retention's part (hookd_bench_retention: RETENTION_OLD=1000000 old
#                         delivered messages, RETENTION_ROUNDS=20 pairs of 2 s windows)
#   SKIP_RECONCILE=1      skip the inbound reconciler part (hookd_bench_reconcile, run after the
#                         micro-benchmarks: RECONCILE_REPEAT=3 runs of RECONCILE_ITEMS=100000
#                         items, RECONCILE_MISSING_PERCENT=1, RECONCILE_PAGE_SIZE=1000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bench_bin="$build/bench"
seconds=${SECONDS_PER_RUN:-10}
connections=${CONNECTIONS:-32}
backlog_messages=${BACKLOG_MESSAGES:-200000}
backlog_publish_seconds=${BACKLOG_PUBLISH_SECONDS:-120}
backlog_drain_seconds=${BACKLOG_DRAIN_SECONDS:-180}
token="bench-token-$$"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source bench/hookd_nodes.sh  # wait_for

# stop PID [SECONDS]: SIGTERM, then SIGKILL if it has not exited in time.
stop() {
  local deadline=$((SECONDS + ${2:-10}))
  kill -TERM "$1" 2>/dev/null || return 0
  while kill -0 "$1" 2>/dev/null; do
    if ((SECONDS >= deadline)); then kill -KILL "$1" 2>/dev/null || true; fi
    sleep 0.05
  done
  wait "$1" 2>/dev/null || true
}

# start_sink NAME [ARGS...]: sets sink_pid and sink_port; stats go to $work/NAME.sink.json.
start_sink() {
  local name=$1
  shift
  "$bench_bin/hookd_bench_sink" --threads 2 --port-file "$work/$name.sink.port" \
    --stats-file "$work/$name.sink.json" --timeout 900 "$@" >/dev/null 2>"$work/$name.sink.log" &
  sink_pid=$!
  pids+=("$sink_pid")
  wait_for "$work/$name.sink.port" 10
  sink_port=$(cat "$work/$name.sink.port")
}

sink_stats() { curl -sS --max-time 5 "http://127.0.0.1:$sink_port/stats"; }

# record NAME JSON: one result line (also copied to $build/bench/e2e-results.jsonl).
record() { jq -c --arg name "$1" '{scenario: $name} + .' <<<"$2" >>"$work/results.jsonl"; }

echo "== machine =="
echo "cores: $(nproc); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); commit: $(git rev-parse --short HEAD 2>/dev/null || echo none)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ "${SKIP_MICRO:-0}" != 1 ]]; then
  echo "== micro-benchmarks (Google Benchmark) =="
  "$bench_bin/hookd_micro_bench" --benchmark_min_time=0.2 "$@"
fi

if [[ "${SKIP_RECONCILE:-0}" != 1 ]]; then
  echo "== inbound reconciler: in-memory feed → SQLite file (hookd_bench_reconcile) =="
  for ((i = 1; i <= ${RECONCILE_REPEAT:-3}; i++)); do
    echo "-- run $i (load average $(cut -d' ' -f1 /proc/loadavg))"
    "$bench_bin/hookd_bench_reconcile" --items "${RECONCILE_ITEMS:-100000}" \
      --missing-percent "${RECONCILE_MISSING_PERCENT:-1}" \
      --page-size "${RECONCILE_PAGE_SIZE:-1000}" --timeout 600 --dir "$work"
  done
fi

if [[ "${SKIP_RETENTION:-0}" != 1 ]]; then
  echo "== retention: publishes beside a purge of old rows, SQLite file (hookd_bench_retention) =="
  echo "-- load average $(cut -d' ' -f1 /proc/loadavg)"
  "$bench_bin/hookd_bench_retention" --old "${RETENTION_OLD:-1000000}" \
    --rounds "${RETENTION_ROUNDS:-20}" --window 2 --timeout 1800 --dir "$work"
fi

echo "== ceiling: load generator → sink, 1 KiB JSON, ${seconds}s, $connections connections =="
start_sink ceiling
"$bench_bin/hookd_bench_loadgen" --url "http://127.0.0.1:$sink_port/deliver" \
  --connections "$connections" --threads 2 --duration "$seconds" --body-size 1024 \
  -H 'Content-Type: application/json' --out "$work/ceiling.loadgen.json" >/dev/null
stop "$sink_pid"
ceiling=$(jq .ok_per_s "$work/ceiling.loadgen.json")
record ceiling "$(jq -c --slurpfile s "$work/ceiling.sink.json" '{
    published_per_s: .ok_per_s, delivered_per_s: $s[0].accepted_per_s,
    ack_p50_us: .latency.p50_us, ack_p99_us: .latency.p99_us,
    e2e_p50_us: $s[0].sent_to_received.p50_us, e2e_p99_us: $s[0].sent_to_received.p99_us,
    errors: .errors, load: "'"$(cut -d' ' -f1 /proc/loadavg)"'",
    loadgen_cpu_us_per_req: (.cpu_s / .completed * 1e6),
    sink_cpu_us_per_req: ($s[0].cpu_s / $s[0].requests * 1e6)}' "$work/ceiling.loadgen.json")"
echo "ceiling: $ceiling req/s (load average now $(cut -d' ' -f1-3 /proc/loadavg));" \
  "CPU µs/request: sink $(jq '.cpu_s / .requests * 1e6 | round' "$work/ceiling.sink.json")," \
  "load generator $(jq '.cpu_s / .completed * 1e6 | round' "$work/ceiling.loadgen.json")"

if "$build/hookd" serve --help >/dev/null 2>&1; then
  source bench/run_hookd.sh
else
  echo "== end-to-end through hookd: skipped ($build/hookd serve is not built yet) =="
fi

mkdir -p "$bench_bin"
cp "$work/results.jsonl" "$bench_bin/e2e-results.jsonl"
echo "== summary (ratios are to the ceiling measured in this run; raw: $bench_bin/e2e-results.jsonl) =="
jq -r --argjson ceiling "$ceiling" '
  def r(x): if x == null then "-" else (x * 1000 | round / 1000 | tostring) end;
  def ms(x): if x == null then "-" else (x / 1000 * 100 | round / 100 | tostring) end;
  [.scenario, r(.published_per_s), r(.delivered_per_s),
   (if .published_per_s then r(.published_per_s / $ceiling) else "-" end),
   (if .delivered_per_s then r(.delivered_per_s / $ceiling) else "-" end),
   ms(.ack_p50_us) + " / " + ms(.ack_p99_us), ms(.e2e_p50_us) + " / " + ms(.e2e_p99_us),
   r(.cpu_s_per_1k), r(.peak_rss_mib)] | @tsv' "$work/results.jsonl" |
  (printf 'scenario\tpublished/s\tdelivered/s\tpub÷ceil\tdel÷ceil\tack p50/p99 ms\tpub→deliv p50/p99 ms\tCPU s/1k msg\tpeak RSS MiB\n'; cat) |
  column -t -s $'\t'

if [[ "${SKIP_PROXY:-0}" != 1 ]] && "$build/hookd" serve --help >/dev/null 2>&1; then
  echo "== idempotency gateway: keyed calls through [[proxy]] → sink (bench/run_proxy.sh) =="
  REPEAT=${PROXY_REPEAT:-1} CONNECTIONS=${PROXY_CONNECTIONS:-64} bash bench/run_proxy.sh "$build" "${PROXY_CALLS:-20000}"
fi
