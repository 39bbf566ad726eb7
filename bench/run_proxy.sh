#!/usr/bin/env bash
# The idempotency gateway benchmark (issue 14, docs/benchmarks.md "Idempotency gateway"):
# hookd_bench_loadgen POSTs 1 KiB JSON bodies, each with an Idempotency-Key of its own, to
# /proxy/bench/deliver of a fresh hookd (SQLite, synchronous=FULL: the claim and the answer
# are two durable, group-committed writes per call) in front of hookd_bench_sink (the fast
# upstream, a 256-byte JSON answer). Each repetition runs, on a fresh hookd and database:
#   closed_direct  the load generator straight at the sink, CONNECTIONS in a closed loop, the
#                  same requests (the same-run ceiling)
#   closed_proxy   the same through hookd: keyed calls/s
#   open_direct    a fixed RATE calls/s for OPEN_SECONDS straight at the sink: p50/p99
#   open_proxy     the same through hookd; added = proxy - direct, per percentile
# and checks that the sink saw each keyed call exactly once. hookd's CPU per call is given by
# thread (from /proc/<pid>/task). Bounded: every run has a request count and a duration, every
# wait a timeout; traffic stays on 127.0.0.1; started processes are killed on exit. Before
# each pair, the disk's synchronous write time is probed (fsync_us_before): a keyed call waits
# for two commits, so the added latency cannot be below about twice that.
# Usage: bench/run_proxy.sh [build dir] [calls per closed run]
# Knobs: REPEAT=3, CONNECTIONS=64, RATE=1000, OPEN_SECONDS=10, SYNCHRONOUS=full,
#   DB_DIR=<dir for the SQLite file; default a temporary directory under /tmp>
# Output: JSON lines on stdout and in $build/bench/proxy-results.jsonl, then a summary table.
set -euo pipefail
build=${1:-build}
calls=${2:-20000}
repeat=${REPEAT:-3}
connections=${CONNECTIONS:-64}
rate=${RATE:-1000}
open_seconds=${OPEN_SECONDS:-10}
synchronous=${SYNCHRONOUS:-full}
bin=$build/bench
work=$(mktemp -d /tmp/hookd-proxy-bench.XXXXXX)
db_dir=${DB_DIR:-$work}
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
  [[ "$db_dir" == "$work" ]] || rm -f "$db_dir"/hookd-proxy-bench-$$.db*
}
trap cleanup EXIT
trap 'exit 130' INT TERM
results=$build/bench/proxy-results.jsonl
mkdir -p "$build/bench"
: >"$results"

source "$(dirname "$0")/hookd_nodes.sh" # wait_for, start_node, stop_nodes
record() { jq -c --arg name "$1" --argjson run "$2" '{scenario: $name, run: $run} + .' <<<"$3" | tee -a "$results"; }

"$bin/hookd_bench_sink" --threads 2 --response-bytes 256 --port-file "$work/sink.port" \
  --timeout 3600 >/dev/null 2>"$work/sink.log" &
pids+=($!)
wait_for "$work/sink.port" 10
sink_port=$(cat "$work/sink.port")
sink() { curl -sS --max-time 5 "$@"; }
sink_reset() { sink -X POST "http://127.0.0.1:$sink_port/control/reset" >/dev/null; }
sink_requests() { sink "http://127.0.0.1:$sink_port/stats" | jq .requests; }
sink_cpu_s() { sink "http://127.0.0.1:$sink_port/stats" | jq .cpu_s; }

cat >"$work/hookd.toml" <<TOML
[database]
sqlite_synchronous = "$synchronous"
[logging]
level = "warn"
[[proxy]]
name = "bench"
upstream = "http://127.0.0.1:$sink_port"
TOML

echo "cores: $(nproc); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //');" \
  "load: $(cut -d' ' -f1-3 /proc/loadavg); commit: $(git rev-parse --short HEAD 2>/dev/null || echo none);" \
  "database: $db_dir ($(df --output=fstype "$db_dir" | tail -1)), synchronous=$synchronous" >&2

clk_tck=$(getconf CLK_TCK)
# thread_ticks PID: "name ticks" per thread name (utime + stime, threads of one name summed).
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    printf '%s %s\n' "$(cat "$t/comm" 2>/dev/null)" "$(sed 's/^.*) //' "$t/stat" 2>/dev/null | awk '{print $12 + $13}')"
  done | awk '{s[$1] += $2} END {for (n in s) print n, s[n]}' | sort
}
# thread_cpu_json BEFORE AFTER CALLS: {"<thread>": µs per call, ..., "total": µs per call}.
thread_cpu_json() {
  join -a 2 -e 0 -o 0,1.2,2.2 "$1" "$2" | awk -v calls="$3" -v tck="$clk_tck" '
    { us = ($3 - $2) / tck * 1e6 / calls; total += us; if (us >= 0.5) printf "%s\"%s\":%.0f", sep, $1, us; if (us >= 0.5) sep = "," }
    END { printf "%s\"total\":%.0f\n", sep, total }' | sed 's/^/{/; s/$/}/'
}

# fsync_us: the mean time of one synchronous 4 KiB write (O_DSYNC, 200 of them) in the
# database's directory, i.e. what one durable commit costs at least on this disk right now.
fsync_us() {
  local seconds
  seconds=$(LC_ALL=C dd if=/dev/zero of="$db_dir/fsync-probe-$$" bs=4k count=200 oflag=dsync 2>&1 |
    awk '/copied/ {for (i = 1; i < NF; i++) if ($(i + 1) == "s,") print $i}')
  rm -f "$db_dir/fsync-probe-$$"
  awk -v s="$seconds" 'BEGIN {printf "%d\n", s / 200 * 1e6}'
}

loadgen() { # URL OUT ARGS...
  local url=$1 out=$2
  shift 2
  "$bin/hookd_bench_loadgen" --url "$url" --idempotency-key -H 'Content-Type: application/json' \
    -H 'Authorization: Bearer sk_bench_tenant' --body-size 1024 --threads 2 --out "$out" "$@" >/dev/null
}

# run_pair RUN KIND ARGS...: KIND_direct then KIND_proxy with the same load generator ARGS.
run_pair() {
  local run=$1 kind=$2
  shift 2
  local direct="$work/$kind.direct.$run.json" proxied="$work/$kind.proxy.$run.json" fsync
  fsync=$(fsync_us)
  sink_reset
  local sink0
  sink0=$(sink_cpu_s)
  loadgen "http://127.0.0.1:$sink_port/deliver" "$direct" "$@"
  record "${kind}_direct" "$run" "$(jq -c --argjson seen "$(sink_requests)" \
    --argjson sink_cpu "$(jq -n --argjson a "$sink0" --argjson b "$(sink_cpu_s)" '$b - $a')" '{
      calls_per_s: .ok_per_s, ok, errors, statuses, upstream_saw: $seen, p50_us: .latency.p50_us,
      p99_us: .latency.p99_us, p999_us: .latency.p999_us, behind_schedule,
      sink_cpu_us_per_call: ($sink_cpu / .ok * 1e6 | round)}' "$direct")"
  sink_reset
  local before="$work/ticks.before" after="$work/ticks.after"
  thread_ticks "$hookd_pid" >"$before"
  loadgen "${node_url[0]}/proxy/bench/deliver" "$proxied" "$@"
  thread_ticks "$hookd_pid" >"$after"
  local ok cpu
  ok=$(jq .ok "$proxied")
  cpu=$(thread_cpu_json "$before" "$after" "$((ok > 0 ? ok : 1))")
  record "${kind}_proxy" "$run" "$(jq -c --argjson seen "$(sink_requests)" --argjson cpu "$cpu" --argjson fsync "$fsync" \
    --slurpfile d "$direct" '{calls_per_s: .ok_per_s, ok, errors, statuses, upstream_saw: $seen,
      exactly_once: ($seen == .ok and .ok == .sent), p50_us: .latency.p50_us,
      p99_us: .latency.p99_us, p999_us: .latency.p999_us, behind_schedule,
      ratio_to_direct: (if .mode == "closed" then (.ok_per_s / $d[0].ok_per_s * 1000 | round / 1000) else null end),
      added_p50_us: (if .mode == "open" then ((.latency.p50_us - $d[0].latency.p50_us) * 10 | round / 10) else null end),
      added_p99_us: (if .mode == "open" then ((.latency.p99_us - $d[0].latency.p99_us) * 10 | round / 10) else null end),
      hookd_cpu_us_per_call: $cpu, fsync_us_before: $fsync, load: "'"$(cut -d' ' -f1 /proc/loadavg)"'"}' "$proxied")"
}

for run in $(seq "$repeat"); do
  rm -f "$db_dir/hookd-proxy-bench-$$.db"*
  start_node 0 "$db_dir/hookd-proxy-bench-$$.db" -- --config "$work/hookd.toml" --token bench
  hookd_pid=${node_pid[0]}
  run_pair "$run" closed --connections "$connections" --max-requests "$calls" --duration 60
  run_pair "$run" open --connections 128 --rate "$rate" \
    --max-requests "$((rate * open_seconds))" --duration "$open_seconds"
  echo "run $run: hookd peak RSS $(awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$hookd_pid/status") MiB;" \
    "forwarded: $(curl -sS --max-time 5 "${node_url[0]}/metrics" |
      awk '/^hookd_proxy_requests_total.*forwarded/ {print $NF}')" >&2
  stop_nodes 1
done

echo "== summary (raw: $results; load average now $(cut -d' ' -f1-3 /proc/loadavg)) ==" >&2
jq -r '[.scenario, (.run | tostring), (.calls_per_s | tostring), (.ratio_to_direct // "-" | tostring),
    ((.p50_us / 1000 * 100 | round / 100 | tostring) + " / " + (.p99_us / 1000 * 100 | round / 100 | tostring)),
    (if .added_p50_us then ((.added_p50_us / 1000 * 100 | round / 100 | tostring) + " / " +
      (.added_p99_us / 1000 * 100 | round / 100 | tostring)) else "-" end),
    (.exactly_once // "-" | tostring), (.hookd_cpu_us_per_call.total // "-" | tostring),
    (.fsync_us_before // "-" | tostring)] | @tsv' "$results" |
  (printf 'scenario\trun\tcalls/s\t÷direct\tp50/p99 ms\tadded p50/p99 ms\texactly once\thookd CPU µs/call\tfsync µs\n'; cat) |
  column -t -s $'\t' >&2
