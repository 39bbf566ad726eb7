#!/usr/bin/env bash
# Installs the Debian packages hookd needs to build, test and run, and only those that are
# missing (quick when everything is there). Idempotent. Needs root (or sudo) on Debian 12.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  ccache  # compiler cache for every build tree (cmake/HookdCcache.cmake, docs/testing.md)
  libssl-dev libsqlite3-dev libcurl4-openssl-dev libboost-dev libboost-system-dev
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libpq-dev postgresql sqlite3 procps curl jq bsdextrautils
  libjemalloc-dev  # the hookd binary's allocator (docs/dependencies.md)
  linux-perf  # profiling the benchmarks (docs/benchmarks.md)
  chromium  # the console's browser test, A36 (tests/interop/console_browser.test.mjs)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
# Node.js and npm drive the interoperability tests (tests/interop). Debian 12's own nodejs
# (18.20.x, with npm 9.2) is tested, as is Node 20; any Node >= 18.19 will do, so an existing
# installation (from Debian or elsewhere) is kept (docs/testing.md, "The interop tests' Node").
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]} == 0)); then
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
