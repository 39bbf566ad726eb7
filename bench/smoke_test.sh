#!/usr/bin/env bash
# ctest "bench_tools_smoke": the load generator sends 200 requests to the sink; both exit 0
# and agree on the count. Usage: smoke_test.sh <hookd_bench_sink> <hookd_bench_loadgen>
set -euo pipefail
sink=$1 loadgen=$2
work=$(mktemp -d)
sink_pid=""
cleanup() {
  [[ -n "$sink_pid" ]] && kill "$sink_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$sink" --port-file "$work/port" --stats-file "$work/sink.json" --timeout 50 >/dev/null &
sink_pid=$!
for _ in $(seq 100); do [[ -s "$work/port" ]] && break; sleep 0.1; done
[[ -s "$work/port" ]] || { echo "sink did not start"; exit 1; }
port=$(cat "$work/port")

"$loadgen" --url "http://127.0.0.1:$port/deliver" --max-requests 200 --connections 4 \
  --duration 20 -H 'webhook-id: msg_same' --out "$work/loadgen.json" >/dev/null

kill -TERM "$sink_pid"
wait "$sink_pid"  # exit status 0 required (set -e)
sink_pid=""

field() { grep -o "\"$2\": [0-9]*" "$1" | head -1 | grep -o '[0-9]*$'; }
sent=$(field "$work/loadgen.json" sent)
ok=$(field "$work/loadgen.json" ok)
received=$(field "$work/sink.json" requests)
samples=$(grep -A8 '"sent_to_received"' "$work/sink.json" | grep -o '"samples": [0-9]*' | grep -o '[0-9]*$')
duplicates=$(field "$work/sink.json" duplicates)  # one webhook-id sent 200 times
echo "loadgen sent=$sent ok=$ok; sink requests=$received latency samples=$samples" \
  "duplicates=$duplicates"
[[ "$sent" == 200 && "$ok" == 200 && "$received" == 200 && "$samples" == 200 ]]
[[ "$duplicates" == 199 ]]
