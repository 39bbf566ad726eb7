#!/usr/bin/env bash
# hookd on PostgreSQL (issue 5): the database's own insert ceiling (pgbench, 1 KiB rows,
# 8 clients), the store's outbound ceiling without HTTP (publish_batch, claim + record of 100,
# 1 and 2 nodes: bench/pg_queue_bench.cpp), and the end-to-end outbound run of issue 3 with 1
# and 2 hookd nodes on one database (loadgen -> API -> PostgreSQL -> dispatcher -> sink):
# max rate with 1 and 10 endpoints, and the drain of a backlog (endpoint down, then up); then
# the inbound gateway benchmark (bench/run_inbound.sh) with 1 and 2 nodes on the same cluster.
# Everything runs against a private, durable cluster (fsync on, synchronous_commit on) in a
# temporary directory, started and removed by this script. Bounded; loopback only.
# Knobs: SECONDS_PER_RUN (10), CONNECTIONS (32), BACKLOG_MESSAGES (20000), BUILD (build),
# ONLY_E2E=1 (skip pgbench and the store-only loops), E2E="NODES:ENDPOINTS:max|backlog ..."
# (the end-to-end runs; default 1:1:max 1:10:max 1:1:backlog 2:1:max 2:1:backlog),
# INBOUND="1 2" (node counts of the inbound runs; "" skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bench_bin="$build/bench"
seconds=${SECONDS_PER_RUN:-10}
connections=${CONNECTIONS:-32}
token="bench-token-$$"
work=$(mktemp -d)
pg_state="$work/pg"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  scripts/pg-test-cluster.sh stop "$pg_state" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source bench/hookd_nodes.sh  # wait_for, start_node, stop_nodes

echo "== machine =="
echo "cores: $(nproc); date: $(date -u +%Y-%m-%dT%H:%MZ); commit: $(git rev-parse --short HEAD)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

scripts/pg-test-cluster.sh start "$pg_state" --durable
url=$(cat "$pg_state/url")
bin=$(cat "$pg_state/bin")
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

if [[ -z ${ONLY_E2E:-} ]]; then
  echo "== pgbench: 1 KiB inserts, 8 clients, ${seconds}s (the database's ceiling) =="
  psql_ "$url" -c "CREATE TABLE bench_rows (id bigserial PRIMARY KEY, payload text NOT NULL)"
  echo "INSERT INTO bench_rows (payload) VALUES (repeat('x', 1024));" >"$work/insert.sql"
  "$bin/pgbench" -n -c 8 -j 2 -T "$seconds" -f "$work/insert.sql" "$url" 2>&1 \
    | grep -E "^(tps|latency average|number of transactions actually)" | tee "$work/pgbench.txt"

  echo "== store only: publish_batch(100) and claim(100) + record_attempts(100), 1 and 2 nodes =="
  HOOKD_PG_URL="$url" "$bench_bin/hookd_micro_bench" --benchmark_filter=PgDeliveries \
    --benchmark_counters_tabular=true 2>&1 | grep -E "BM_|Benchmark|---"
fi

start_sink() {
  "$bench_bin/hookd_bench_sink" --threads 2 --port-file "$work/sink.port" \
    --stats-file "$work/sink.json" --timeout 900 >/dev/null 2>"$work/sink.log" &
  sink_pid=$!
  pids+=("$sink_pid")
  wait_for "$work/sink.port" 10
  sink_port=$(cat "$work/sink.port")
}

api() {
  curl -sS --fail-with-body --max-time 10 -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' "$@"
}

# e2e NODES ENDPOINTS MODE: MODE "max" publishes at the maximum rate through every node's
# API for $seconds, then waits until all is delivered; MODE "backlog" publishes
# $backlog_messages while the endpoint answers 503, then brings it up and times the drain
# (the dispatcher's delivery ceiling: nothing else competes for the CPU).
backlog_messages=${BACKLOG_MESSAGES:-20000}
e2e() {
  local nodes=$1 endpoints=$2 mode=$3 db="bench_e2e_$1_$2_$3"
  local what="max rate, ${seconds}s"
  [[ $mode == backlog ]] && what="backlog of $backlog_messages, endpoint down then up"
  echo "== hookd on PostgreSQL: $nodes node(s), 1 app, $endpoints endpoint(s), $what =="
  psql_ "$url" -c "CREATE DATABASE $db"
  rm -f "$work"/sink.* "$work"/node*.port
  start_sink
  local node_env=()
  if [[ $mode == backlog ]]; then
    node_env=(HOOKD_DELIVERY_SCHEDULE=1s HOOKD_DELIVERY_MAX_ATTEMPTS=100
      HOOKD_DELIVERY_MAX_AGE=1h HOOKD_DELIVERY_CIRCUIT_COOLDOWN=1s)
    curl -sS --max-time 5 -X POST "http://127.0.0.1:$sink_port/control/down" >/dev/null
  fi
  for n in $(seq 0 $((nodes - 1))); do
    start_node "$n" "${url%/*}/$db" "${node_env[@]}" -- --token "$token"
  done
  local app
  app=$(api -X POST "${node_url[0]}/api/v1/app" -d '{"name":"bench"}' | jq -r .id)
  for e in $(seq 1 "$endpoints"); do
    api -X POST "${node_url[0]}/api/v1/app/$app/endpoint" \
      -d "{\"url\":\"http://127.0.0.1:$sink_port/hook/$e\"}" >/dev/null
  done
  local lg=() limit=()
  [[ $mode == backlog ]] && limit=(--max-requests $((backlog_messages / nodes)))
  for n in $(seq 0 $((nodes - 1))); do
    "$bench_bin/hookd_bench_loadgen" --url "${node_url[$n]}/api/v1/app/$app/msg" \
      -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
      --event-type bench.event --body-size 1024 --threads 1 \
      --connections $((connections / nodes)) --duration "$seconds" "${limit[@]}" \
      --out "$work/loadgen$n.json" >/dev/null &
    lg+=($!)
  done
  wait "${lg[@]}" || true
  local published=0 pub_rate=0
  for n in $(seq 0 $((nodes - 1))); do
    published=$((published + $(jq .ok "$work/loadgen$n.json")))
    pub_rate=$(jq -n "$pub_rate + $(jq .ok_per_s "$work/loadgen$n.json")")
  done
  [[ $mode == backlog ]] && curl -sS --max-time 5 -X POST "http://127.0.0.1:$sink_port/control/up" >/dev/null
  local expected=$((published * endpoints))
  local deadline=$((SECONDS + 180)) seen=0
  while ((SECONDS < deadline)); do
    seen=$(curl -sS --max-time 5 "http://127.0.0.1:$sink_port/stats" | jq .unique_deliveries)
    ((seen >= expected)) && break
    sleep 0.5
  done
  curl -sS --max-time 5 "http://127.0.0.1:$sink_port/stats" >"$work/sink.now.json"
  printf '  published %d (%.0f/s, ack p99 %s ms), delivered %d of %d (%.0f/s first->last), duplicates %s\n' \
    "$published" "$pub_rate" "$(jq '.latency.p99_us / 1000' "$work/loadgen0.json")" "$seen" \
    "$expected" "$(jq .accepted_per_s "$work/sink.now.json")" "$(jq .duplicates "$work/sink.now.json")"
  stop_nodes "$nodes"
  kill "$sink_pid" 2>/dev/null || true
  wait "$sink_pid" 2>/dev/null || true
}

for run in ${E2E:-1:1:max 1:10:max 1:1:backlog 2:1:max 2:1:backlog}; do
  IFS=: read -r nodes endpoints mode <<<"$run"
  e2e "$nodes" "$endpoints" "$mode"
done

# The inbound benchmark of issue 4 (bench/run_inbound.sh) on the same cluster, beside the
# pgbench ceiling above: 1 and 2 nodes, each on a fresh database. INBOUND="" skips it;
# INBOUND_REQUESTS (20000) and INBOUND_CONNECTIONS (256) size it.
for nodes in ${INBOUND-1 2}; do
  db="inbound_$nodes"
  psql_ "$url" -c "CREATE DATABASE $db"
  echo "== inbound gateway on PostgreSQL: $nodes node(s), ${INBOUND_CONNECTIONS:-256} connections =="
  NODES=$nodes DATABASE="${url%/*}/$db" CONNECTIONS=${INBOUND_CONNECTIONS:-256} \
    bash bench/run_inbound.sh "$build" "${INBOUND_REQUESTS:-20000}"
done
