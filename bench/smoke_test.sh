#!/usr/bin/env bash
# ctest "bench_tools_smoke": the load generator sends 200 requests to the sink; both exit 0
# and agree on the count. With a hookd binary, also bench/run_proxy.sh's path in small: 200
# keyed calls through a [[proxy]] in front of the sink reach it exactly once, and a retry of
# one of them is replayed without reaching it.
# Usage: smoke_test.sh <hookd_bench_sink> <hookd_bench_loadgen> [<hookd>]
set -euo pipefail
sink=$1 loadgen=$2 hookd=${3:-}
work=$(mktemp -d)
sink_pid=""
hookd_pid=""
cleanup() {
  [[ -n "$hookd_pid" ]] && kill "$hookd_pid" 2>/dev/null || true
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

[[ -n "$hookd" ]] || exit 0

# The idempotency gateway: 200 keyed calls, loadgen -> hookd /proxy/bench -> sink.
"$sink" --port-file "$work/port2" --response-bytes 64 --timeout 50 >/dev/null 2>&1 &
sink_pid=$!
for _ in $(seq 100); do [[ -s "$work/port2" ]] && break; sleep 0.1; done
[[ -s "$work/port2" ]] || { echo "sink did not start"; exit 1; }
port=$(cat "$work/port2")
printf '[logging]\nlevel = "warn"\n[[proxy]]\nname = "bench"\nupstream = "http://127.0.0.1:%s"\n' \
  "$port" >"$work/hookd.toml"
"$hookd" serve --config "$work/hookd.toml" --database "$work/hookd.db" --listen 127.0.0.1:0 \
  --port-file "$work/hookd.port" --token smoke >"$work/hookd.log" 2>&1 &
hookd_pid=$!
for _ in $(seq 200); do [[ -s "$work/hookd.port" ]] && break; sleep 0.1; done
[[ -s "$work/hookd.port" ]] || { echo "hookd did not start"; cat "$work/hookd.log"; exit 1; }
hookd_url="http://127.0.0.1:$(cat "$work/hookd.port")"
"$loadgen" --url "$hookd_url/proxy/bench/deliver" --idempotency-key --max-requests 200 \
  --connections 8 --duration 20 -H 'Content-Type: application/json' --out "$work/proxy.json" >/dev/null
retry() {
  curl -sS --max-time 10 -o /dev/null -D - -X POST -H 'Idempotency-Key: smoke-1' -d '{}' \
    -H 'Content-Type: application/json' "$hookd_url/proxy/bench/deliver" | tr -d '\r'
}
first=$(retry)
again=$(retry)
received=$(curl -sS --max-time 5 "http://127.0.0.1:$port/stats" | grep -o '"requests":[0-9]*' | grep -o '[0-9]*$')
ok=$(field "$work/proxy.json" ok)
echo "proxy: loadgen ok=$ok; sink requests=$received (200 + 1 expected);" \
  "retry: $(head -1 <<<"$again") $(grep -i '^idempotent-replayed' <<<"$again")"
[[ "$ok" == 200 && "$received" == 201 ]]
grep -q '^HTTP/1.1 200' <<<"$first" && ! grep -qi '^idempotent-replayed' <<<"$first"
grep -q '^HTTP/1.1 200' <<<"$again" && grep -qi '^idempotent-replayed: true' <<<"$again"
