#!/usr/bin/env bash
# Circuit breaker recovery curve (docs/benchmarks.md, "Circuit breaker recovery", A39): the
# endpoint is dead (503), 30 messages open its circuit, MESSAGES more are published while it
# is open (the backlog), the endpoint comes back, and the backlog drains. Prints, per 100 ms after "up", the requests that arrived and
# the highest concurrency among them, then the time to drain.
#   BUILD=build MESSAGES=500 SERVICE_MS=20 COOLDOWN=2s bash bench/breaker_drain.sh
# Breaker keys at their defaults except circuit_cooldown (COOLDOWN, to shorten the wait for
# the trickle request that notices the recovery); retries from 100 ms (backoff_base).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
messages=${MESSAGES:-500}
service_ms=${SERVICE_MS:-20}
cooldown=${COOLDOWN:-2s}
token=bench-token-breaker
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
source bench/hookd_nodes.sh

python3 bench/breaker_sink.py --port-file "$work/sink.port" --service-ms "$service_ms" &
pids+=($!)
wait_for "$work/sink.port" 10
sink="http://127.0.0.1:$(cat "$work/sink.port")"

start_node 0 "$work/hookd.db" HOOKD_DELIVERY_BACKOFF_BASE=100ms HOOKD_DELIVERY_MAX_ATTEMPTS=100 \
  HOOKD_DELIVERY_CIRCUIT_COOLDOWN="$cooldown" -- --token "$token"
hookd=${node_url[0]}
api() { curl -sS --fail-with-body --max-time 10 -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$@"; }
app=$(api -X POST "$hookd/api/v1/app" -d '{"name":"breaker"}' | jq -r .id)
api -X POST "$hookd/api/v1/app/$app/endpoint" -d "{\"url\":\"$sink/hook\"}" >/dev/null
publish() {  # publish N EVENT_TYPE
  for i in $(seq "$1"); do
    api -X POST "$hookd/api/v1/app/$app/msg" -d "{\"eventType\":\"$2\",\"payload\":{\"i\":$i}}" >/dev/null
  done
}
publish 30 before
echo "published 30 messages while the endpoint answers 503"
open_circuits() { curl -s "$hookd/metrics" | awk '/^hookd_outbound_open_circuits /{print $2}'; }
start=$SECONDS
until [[ $(open_circuits) == 1 ]]; do
  ((SECONDS - start < 120)) || { echo "the circuit did not open" >&2; exit 1; }
  sleep 0.2
done
echo "circuit open after $((SECONDS - start)) s; $(curl -s "$sink/stats" | jq .down_requests) requests while down"
publish "$messages" backlog
echo "published $messages more while the circuit is open (the backlog)"
sleep 3
curl -s -X POST "$sink/control/up" >/dev/null
echo "endpoint up"
start=$SECONDS
until [[ $(curl -s "$sink/stats" | jq .unique) -ge $((messages + 30)) ]]; do
  ((SECONDS - start < 120)) || { echo "backlog not drained" >&2; break; }
  sleep 0.2
done
curl -s "$sink/stats" >"$work/stats.json"
jq -r '"down requests: \(.down_requests); after up: \(.up_requests) requests, \(.unique) unique"' "$work/stats.json"
echo "ms after up | requests | max concurrency"
jq -r '.arrivals | group_by((.[0] * 10) | floor) | .[] |
  "\(((.[0][0] * 10) | floor) * 100) | \(length) | \(map(.[1]) | max)"' "$work/stats.json"
jq -r '.arrivals | "first request \(.[0][0]) s after up, last \(.[-1][0]) s"' "$work/stats.json"
