# Sourced by bench/run.sh once `hookd serve` exists: the end-to-end scenarios of issue 3.
# Each scenario runs a fresh hookd (own SQLite database, default durability) and a fresh
# sink, publishes 1 KiB messages through the API with the load generator, waits (bounded)
# until the sink has every delivery, and records the figures with run.sh's `record`.
# Uses from run.sh: build, bench_bin, work, pids, token, seconds, connections, backlog_*,
# wait_for, stop, start_sink, sink_port, sink_pid, sink_stats, record.

hookd_help=$("$build/hookd" serve --help 2>&1 || true)
clk_tck=$(getconf CLK_TCK)

# start_hookd NAME [VAR=value...]: sets hookd_pid and hookd_url.
start_hookd() {
  local name=$1
  shift
  local port_file="$work/$name.hookd.port" listen_args=()
  if grep -q -- '--port-file' <<<"$hookd_help"; then
    listen_args=(--listen 127.0.0.1:0 --port-file "$port_file")
  else  # no --port-file: borrow a free port from a throwaway sink
    local borrowed=$sink_pid borrowed_port=$sink_port
    start_sink "$name.portprobe"
    echo "$sink_port" >"$port_file"
    stop "$sink_pid"
    listen_args=(--listen "127.0.0.1:$sink_port")
    sink_pid=$borrowed sink_port=$borrowed_port
  fi
  env HOOKD_SSRF_ALLOWED_SUBNETS=127.0.0.0/8 "$@" "$build/hookd" serve "${listen_args[@]}" \
    --database "$work/$name.db" --token "$token" >"$work/$name.hookd.log" 2>&1 &
  hookd_pid=$!
  pids+=("$hookd_pid")
  wait_for "$port_file" 20
  hookd_url="http://127.0.0.1:$(cat "$port_file")"
  local deadline=$((SECONDS + 20))
  until curl -sf --max-time 2 "$hookd_url/api/v1/health" >/dev/null \
    || curl -sf --max-time 2 "$hookd_url/api/v1/health/" >/dev/null; do
    ((SECONDS < deadline)) || { echo "hookd did not become healthy" >&2; tail "$work/$name.hookd.log" >&2; return 1; }
    sleep 0.1
  done
}

api() {
  curl -sS --fail-with-body --max-time 10 -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' "$@"
}

# create_app ENDPOINTS: one application with ENDPOINTS endpoints on the sink; sets app_id.
create_app() {
  app_id=$(api -X POST "$hookd_url/api/v1/app" -d '{"name":"bench"}' | jq -r .id)
  for i in $(seq "$1"); do
    api -X POST "$hookd_url/api/v1/app/$app_id/endpoint" \
      -d "{\"url\":\"http://127.0.0.1:$sink_port/hook/$i\",\"description\":\"bench $i\"}" >/dev/null
  done
}

cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }  # utime + stime
peak_rss_mib() { awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

# wait_delivered COUNT SECONDS: until the sink saw COUNT distinct (path, webhook-id) pairs (or timeout).
wait_delivered() {
  local deadline=$((SECONDS + $2)) seen=0
  while ((SECONDS < deadline)); do
    seen=$(sink_stats | jq .unique_deliveries)
    ((seen >= $1)) && return 0
    sleep 0.2
  done
  echo "  timed out: $seen of $1 deliveries after $2 s" >&2
}

# publish NAME LOADGEN_ARGS...: 1 KiB messages through the API.
publish() {
  local name=$1
  shift
  "$bench_bin/hookd_bench_loadgen" --url "$hookd_url/api/v1/app/$app_id/msg" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --event-type bench.event --body-size 1024 --threads 2 --out "$work/$name.loadgen.json" \
    "$@" >/dev/null || true
}

# finish NAME ENDPOINTS CPU_TICKS_BEFORE [JQ]: records the scenario (JQ, if given, amends the
# record; $s[0] is the sink's summary) and stops hookd and the sink.
finish() {
  local name=$1 endpoints=$2 cpu0=$3 amend=${4:-.}
  local published cpu_s rss
  published=$(jq .ok "$work/$name.loadgen.json")
  cpu_s=$(awk -v a="$cpu0" -v b="$(cpu_ticks "$hookd_pid")" -v t="$clk_tck" 'BEGIN {print (b - a) / t}')
  rss=$(peak_rss_mib "$hookd_pid")
  sink_stats >"$work/$name.sink.now.json"
  stop "$hookd_pid" 30
  stop "$sink_pid"
  record "$name" "$(jq -c --slurpfile s "$work/$name.sink.now.json" \
    --argjson endpoints "$endpoints" --argjson cpu "$cpu_s" --argjson rss "$rss" '{
      published: .ok, published_per_s: .ok_per_s, delivered: $s[0].unique_deliveries,
      delivered_per_s: $s[0].accepted_per_s, duplicates: $s[0].duplicates,
      ack_p50_us: .latency.p50_us, ack_p99_us: .latency.p99_us,
      e2e_p50_us: $s[0].sent_to_received.p50_us, e2e_p99_us: $s[0].sent_to_received.p99_us,
      cpu_s_per_1k: (if .ok > 0 then $cpu / .ok * 1000 else null end), peak_rss_mib: $rss,
      endpoints: $endpoints, statuses: .statuses, errors: .errors,
      behind_schedule: .behind_schedule} | '"$amend" \
    "$work/$name.loadgen.json")"
  echo "  published $published, delivered $(jq .unique_deliveries "$work/$name.sink.now.json")," \
    "hookd CPU ${cpu_s}s, peak RSS ${rss} MiB"
}

# Publishing as fast as acknowledgements come, to ENDPOINTS endpoints; further arguments go
# to the load generator (e.g. --idempotency-key).
scenario_max_rate() {
  local name=$1 endpoints=$2
  shift 2
  echo "== hookd: max publish rate, 1 app, $endpoints endpoint(s), ${seconds}s $* =="
  start_sink "$name"
  start_hookd "$name"
  create_app "$endpoints"
  local cpu0
  cpu0=$(cpu_ticks "$hookd_pid")
  publish "$name" --connections "$connections" --duration "$seconds" "$@"
  wait_delivered $(($(jq .ok "$work/$name.loadgen.json") * endpoints)) 60
  finish "$name" "$endpoints" "$cpu0"
}

# A fixed offered rate (open loop: latency from the scheduled send time).
scenario_fixed_rate() {
  local name=$1 rate=$2
  echo "== hookd: offered $rate msg/s, 1 endpoint, ${seconds}s =="
  start_sink "$name"
  start_hookd "$name"
  create_app 1
  local cpu0
  cpu0=$(cpu_ticks "$hookd_pid")
  publish "$name" --rate "$rate" --connections 128 --duration "$seconds"
  wait_delivered "$(jq .ok "$work/$name.loadgen.json")" 60
  finish "$name" 1 "$cpu0"
}

# Backlog: publish while the endpoint answers 503, then bring it up and time the drain.
# Realistic recovery: retries every second, a 1 s breaker cool-down: while open, one request
# per second (+-20 % jitter), so after "up" hookd notices within about a second; then the
# concurrency ramps up 1, 2, 4 ... 32 over 5 s (slow start; bench/breaker_drain.sh measures
# that curve). Reported: time from "up" to the first delivery, drain rate from the first to
# the last delivery, and up -> last.
scenario_backlog() {
  local name=backlog
  echo "== hookd: backlog of $backlog_messages messages, endpoint down then up =="
  start_sink "$name" --down
  start_hookd "$name" HOOKD_DELIVERY_SCHEDULE=1s HOOKD_DELIVERY_MAX_ATTEMPTS=100 \
    HOOKD_DELIVERY_MAX_AGE=1h HOOKD_DELIVERY_CIRCUIT_COOLDOWN=1s
  create_app 1
  local cpu0 published
  cpu0=$(cpu_ticks "$hookd_pid")
  publish "$name" --connections "$connections" --max-requests "$backlog_messages" \
    --duration "$backlog_publish_seconds"
  published=$(jq .ok "$work/$name.loadgen.json")
  curl -sS --max-time 5 -X POST "http://127.0.0.1:$sink_port/control/up" >/dev/null
  wait_delivered "$published" "$backlog_drain_seconds"
  # Delivered/s is the drain rate (first -> last delivery after "up"); publish->delivered
  # latency would include the outage, so it is left out.
  finish "$name" 1 "$cpu0" '. + {delivered_per_s: $s[0].accepted_per_s,
    up_to_last_per_s: $s[0].drain_per_s,
    first_delivery_after_up_s: (if $s[0].first_accepted_unix_ns > 0
      then (($s[0].first_accepted_unix_ns - $s[0].up_at_unix_ns) / 1e9 * 100 | round / 100)
      else null end),
    e2e_p50_us: null, e2e_p99_us: null, rejected_while_down: $s[0].rejected_while_down}'
  jq -r '"  backlog: first delivery \(.first_delivery_after_up_s) s after up; drain \(.delivered_per_s)/s (first->last), \(.up_to_last_per_s)/s (up->last); rejected while down \(.rejected_while_down)"' \
    <<<"$(tail -1 "$work/results.jsonl")"
}

# SCENARIOS (space-separated names, default all) picks which of these run.
wanted() { [[ -z "${SCENARIOS:-}" || " $SCENARIOS " == *" $1 "* ]]; }

wanted hookd_1_endpoint && scenario_max_rate hookd_1_endpoint 1
# The Svix SDK sends an Idempotency-Key with every POST: the same run with one per request.
wanted hookd_1_endpoint_keyed && scenario_max_rate hookd_1_endpoint_keyed 1 --idempotency-key
wanted hookd_10_endpoints && scenario_max_rate hookd_10_endpoints 10
wanted hookd_1000_per_s && scenario_fixed_rate hookd_1000_per_s 1000
wanted hookd_backlog && scenario_backlog
true  # the last `wanted` may have been false
