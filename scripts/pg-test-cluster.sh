#!/usr/bin/env bash
# A private, throw-away PostgreSQL cluster for tests and benchmarks: a temporary directory,
# a free port on 127.0.0.1, trust authentication, run as the `postgres` user when invoked as
# root (initdb/pg_ctl refuse root), as the caller otherwise. Installs Debian's postgresql
# when it is missing. Nothing outside the temporary directory is touched.
#
#   pg-test-cluster.sh start STATE_DIR [--durable]   # writes STATE_DIR/url (postgresql://...)
#   pg-test-cluster.sh stop STATE_DIR                # stops the server, removes its data
#   pg-test-cluster.sh server-stop STATE_DIR         # stops the server, keeps the data
#   pg-test-cluster.sh server-start STATE_DIR        # starts it again on the same port
#
# Without --durable the test cluster runs with fsync=off (a test cluster's data need not
# survive an OS crash); commits are still synchronous. Benchmarks pass --durable.
set -euo pipefail

cmd=${1:-}
state=${2:-}
[[ -n "$cmd" && -n "$state" ]] || { sed -n '2,13p' "$0" >&2; exit 2; }

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [[ -z "$dir" || ! -x "$dir/initdb" ]]; then
    echo "pg-test-cluster: installing postgresql" >&2
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
      postgresql >&2
    dir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "$dir"
}

# Runs a PostgreSQL server tool as the owner of the data directory.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Below Linux's ephemeral range (32768-60999): a port the kernel handed to an outgoing
# connection is not "in use" for connect() but makes bind() fail (seen as flaky starts).
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  echo "pg-test-cluster: no free port found" >&2
  exit 1
}

server_start() {
  local bin data port
  bin=$(cat "$state/bin"); data=$(cat "$state/data"); port=$(cat "$state/port")
  as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 -o "-p $port" start >/dev/null
}

server_stop() {
  local bin data
  bin=$(cat "$state/bin"); data=$(cat "$state/data")
  as_owner "$bin/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
}

start() {
  local durable=${1:-}
  [[ -f "$state/data" ]] && stop  # a leftover from an interrupted run
  mkdir -p "$state"
  local bin root data port
  bin=$(pg_bin)
  root=$(mktemp -d /tmp/hookd-pg-XXXXXX)
  data="$root/data"
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
    chown postgres: "$root"
  fi
  as_owner "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
    --no-instructions >"$root/initdb.log" 2>&1 || { cat "$root/initdb.log" >&2; exit 1; }
  port=$(free_port)
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$root'"
    echo "max_connections = 300"
    echo "shared_buffers = 128MB"
    echo "log_min_messages = warning"
    [[ "$durable" == "--durable" ]] || echo "fsync = off"
  } >>"$data/postgresql.conf"
  echo "$bin" >"$state/bin"
  echo "$data" >"$state/data"
  echo "$root" >"$state/root"
  echo "$port" >"$state/port"
  server_start
  echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$state/url"
  echo "pg-test-cluster: $(cat "$state/url") (data in $data)"
}

stop() {
  [[ -f "$state/data" ]] || return 0
  server_stop
  rm -rf "$(cat "$state/root")"
  rm -f "$state/bin" "$state/data" "$state/root" "$state/port" "$state/url"
}

case "$cmd" in
  start) start "${3:-}" ;;
  stop) stop ;;
  server-stop) server_stop ;;
  server-start) server_start ;;
  *) echo "pg-test-cluster: unknown command $cmd" >&2; exit 2 ;;
esac
