#!/usr/bin/env bash
# The inbound gateway benchmark (issue 4): signed 1 KiB Standard Webhooks requests from
# hookd_bench_inbound_loadgen to /in/bench of a fresh hookd (SQLite, synchronous=FULL by
# default), forwarded to hookd_bench_sink. Scenarios:
#   ceiling         the load generator against the sink directly (same run, same machine)
#   closed          as fast as answers come: accepted/s (verified + durably stored + 200),
#                   then forwarded/s (sink arrivals of distinct webhook-ids)
#   closed_dup50    the same with 50% duplicate event ids
#   open_2000       a fixed 2,000 requests/s: p50/p99 of the 200
#   open_2000_dup50 the same with 50% duplicates
# DATABASE=postgresql://… runs hookd on that database instead of a fresh SQLite file;
# NODES=2 (with DATABASE) runs two hookd nodes on it, the load generator's connections
# spread over both, both forwarding to the same sink. Event ids carry this run's id, so runs
# may share a database.
# Usage: bench/run_inbound.sh [build dir] [requests]   → JSON lines on stdout and in
# $build/bench/inbound-results.jsonl
set -euo pipefail
build=${1:-build}
requests=${2:-30000}
connections=${CONNECTIONS:-32}
nodes=${NODES:-1}
if ((nodes > 1)) && [[ ${DATABASE:-} != postgres* ]]; then
  echo "NODES=$nodes needs DATABASE=postgresql://… (nodes share one database)" >&2
  exit 2
fi
bin=$build/bench
work=$(mktemp -d /tmp/hookd-inbound-bench.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
secret=whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD
results=$build/bench/inbound-results.jsonl
: >"$results"

source "$(dirname "$0")/hookd_nodes.sh"  # wait_for, start_node
record() { jq -c --arg name "$1" '{scenario: $name} + .' <<<"$2" | tee -a "$results"; }

"$bin/hookd_bench_sink" --threads 2 --port-file "$work/sink.port" --timeout 1800 >/dev/null 2>"$work/sink.log" &
pids+=($!)
wait_for "$work/sink.port" 10
sink_port=$(cat "$work/sink.port")
sink() { curl -sS --max-time 5 "$@"; }
sink_reset() { sink -X POST "http://127.0.0.1:$sink_port/control/reset" >/dev/null; }

echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); nodes: $nodes; commit: $(git rev-parse --short HEAD 2>/dev/null || echo none)" >&2

# Ceiling: the load generator straight to the sink.
"$bin/hookd_bench_inbound_loadgen" --port "$sink_port" --target /deliver --connections "$connections" \
  --requests "$requests" --id-prefix ceiling --out "$work/ceiling.json" >/dev/null
record ceiling "$(jq -c '{accepted_per_s: .ok_per_s, p50_us: .latency.p50_us, p99_us: .latency.p99_us}' "$work/ceiling.json")"
sink_reset

cat >"$work/hookd.toml" <<TOML
[delivery]
workers = 64
poll_interval = "100ms"
[logging]
level = "warn"
[[source]]
name = "bench"
scheme = "standard"
secrets = ["$secret"]
[source.forward]
url = "http://127.0.0.1:$sink_port/forward"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
TOML
node_ports=()
for n in $(seq 0 $((nodes - 1))); do
  start_node "$n" "${DATABASE:-$work/hookd.db}" -- --config "$work/hookd.toml" --token bench
  node_ports+=(--port "${node_port[$n]}")
done

# wait_forwarded N: until the sink has N distinct forwards (bounded); prints forwarded/s.
wait_forwarded() {
  local deadline=$((SECONDS + 120)) seen=0
  while ((SECONDS < deadline)); do
    seen=$(sink "http://127.0.0.1:$sink_port/stats" | jq .unique_deliveries)
    ((seen >= $1)) && break
    sleep 0.2
  done
  sink "http://127.0.0.1:$sink_port/stats" | jq -c --argjson want "$1" \
    '{forwarded: .unique_deliveries, want: $want, forwarded_per_s: .accepted_per_s, duplicates_at_app: .duplicates}'
}

scenario() {  # NAME DUPLICATE_FRACTION LOADGEN-ARGS...
  local name=$1 dup=$2
  shift 2
  sink_reset
  "$bin/hookd_bench_inbound_loadgen" "${node_ports[@]}" --target /in/bench \
    --connections "$connections" --id-prefix "$name-$$" --duplicates "$dup" \
    --out "$work/$name.json" "$@" >/dev/null
  # Distinct events acknowledged: each of the first (1-dup)·N requests is a new id.
  local unique fwd
  unique=$(jq --argjson d "$dup" '[.ok, ((.ok + 0) * (1 - $d) | ceil)] | min' "$work/$name.json")
  fwd=$(wait_forwarded "$unique")
  record "$name" "$(jq -c --argjson f "$fwd" '{accepted_per_s: .ok_per_s, ok, errors, statuses,
      p50_us: .latency.p50_us, p99_us: .latency.p99_us, max_us: .latency.max_us} + $f' "$work/$name.json")"
}

scenario closed 0 --requests "$requests" --duration 20
scenario closed_dup50 0.5 --requests "$requests" --duration 20
scenario open_2000 0 --requests 20000 --rate 2000 --duration 10
scenario open_2000_dup50 0.5 --requests 20000 --rate 2000 --duration 10
for n in $(seq 0 $((nodes - 1))); do  # forwards: what this node's forwarder settled, all runs
  forwards=$(curl -sS --max-time 5 "${node_url[$n]}/metrics" \
    | awk '/^hookd_inbound_forwards_total/ {s += $NF} END {print s + 0}')
  echo "node $n rss_mib: $(awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/${node_pid[$n]}/status"); forwards: $forwards" >&2
done
