# Sourced by the benchmark scripts that run one or several hookd nodes (bench/run_pg.sh,
# bench/run_inbound.sh): waiting for a file, and starting hookd node N on a database — its
# own node id (nodes on one host tell their leases apart by HOOKD_NODE_ID), a free loopback
# port, loopback allowed as a destination — then waiting until it is ready.
# Uses from the caller: build (the build directory), work (a temporary directory), pids (an
# array: started processes are appended). Sets node_pid[N], node_port[N], node_url[N].

# wait_for FILE SECONDS: until FILE exists and is not empty (fails after SECONDS).
wait_for() {
  local deadline=$((SECONDS + $2))
  until [[ -s "$1" ]]; do
    ((SECONDS < deadline)) || { echo "timed out waiting for $1" >&2; return 1; }
    sleep 0.05
  done
}

declare -A node_pid node_port node_url

# start_node N DATABASE [VAR=value...] [-- SERVE-ARGS...]: `hookd serve` as node N (log in
# $work/nodeN.log) with the environment and extra arguments given, ready when this returns.
start_node() {
  local n=$1 db=$2 env_args=()
  shift 2
  while (($#)) && [[ $1 != -- ]]; do
    env_args+=("$1")
    shift
  done
  (($#)) && shift
  rm -f "$work/node$n.port"
  env HOOKD_NODE_ID="bench$n" HOOKD_SSRF_ALLOWED_SUBNETS=127.0.0.0/8 "${env_args[@]}" \
    "$build/hookd" serve --listen 127.0.0.1:0 --port-file "$work/node$n.port" \
    --database "$db" "$@" >"$work/node$n.log" 2>&1 &
  node_pid[$n]=$!
  pids+=("${node_pid[$n]}")
  wait_for "$work/node$n.port" 30
  node_port[$n]=$(cat "$work/node$n.port")
  node_url[$n]="http://127.0.0.1:${node_port[$n]}"
  local deadline=$((SECONDS + 30))
  until curl -sf --max-time 2 "${node_url[$n]}/readyz" >/dev/null; do
    ((SECONDS < deadline)) || { echo "node $n not ready" >&2; tail "$work/node$n.log" >&2; return 1; }
    sleep 0.1
  done
}

# stop_nodes N: ends nodes 0..N-1 and waits for them.
stop_nodes() {
  local n
  for n in $(seq 0 $(($1 - 1))); do kill "${node_pid[$n]}" 2>/dev/null || true; done
  for n in $(seq 0 $(($1 - 1))); do wait "${node_pid[$n]}" 2>/dev/null || true; done
}
