#!/usr/bin/env bash
# The layering of docs/architecture.md, checked against the build (ctest `layering`):
#  1. every library sees exactly the folders the picture allows it (build/layers/manifest.txt,
#     written by cmake/HookdTargets.cmake from the DEPS of each library), and
#  2. the compiler really refuses an include against the arrows: for each library, one header
#     of every folder it must not see is preprocessed with that library's include paths and
#     must fail with "No such file"; one of every folder it may see is there.
# Usage: layering_test.sh BUILD_DIR SOURCE_DIR CXX
set -euo pipefail
build=$1
src=$2
cxx=$3

# The picture: each library and the folders it may include (its own first).
declare -A allowed=(
  [hookd_core]="core"
  [hookd_env]="core env"
  [hookd_store]="core store"
  [hookd_store_sqlite]="core store store/sqlite"
  [hookd_store_postgres]="core store store/postgres"
  [hookd_wire]="core store wire"
  [hookd_net]="core net"
  [hookd_config]="config core"
  [hookd_ops]="core ops"
  [hookd_api]="api core net ops store wire"
  [hookd_outbound]="core net ops outbound store"
  [hookd_inbound]="core inbound net ops store"
  [hookd_proxy]="core net ops proxy store"
  [hookd_reconcile]="core inbound net ops reconcile store wire"
  [hookd_app]="api app config core env inbound net ops outbound proxy reconcile store store/postgres store/sqlite wire"
  [hookd_cli]="api app cli config core env inbound net ops outbound proxy reconcile store store/postgres store/sqlite wire"
)
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

manifest=$build/layers/manifest.txt
[[ -f $manifest ]] || { echo "no $manifest"; exit 1; }
declare -A built=()
while read -r lib folders; do
  built[${lib%:}]=$folders
done <"$manifest"

for lib in "${!allowed[@]}"; do
  want=$(tr ' ' '\n' <<<"${allowed[$lib]}" | sort | xargs)
  have=$(tr ' ' '\n' <<<"${built[$lib]:-}" | sort | xargs)
  [[ "$want" == "$have" ]] || fail "$lib sees [$have], the picture allows [$want]"
done
for lib in "${!built[@]}"; do
  [[ -v allowed[$lib] ]] || fail "$lib is not in the picture (tests/layering/layering_test.sh)"
done

# A header of FOLDER (any one), as written in an include.
some_header() {
  local f
  f=$(cd "$src/src" && ls "$1"/*.hpp 2>/dev/null | head -1)
  echo "$f"
}

# preprocess LIB HEADER: 0 if HEADER resolves with LIB's include paths.
preprocess() {
  echo "#include \"$2\"" | "$cxx" -std=c++23 -E -x c++ - -I "$build/layers/$1" -I "$src/include" \
    -I /usr/include/postgresql \
    -o /dev/null 2>"$build/layers/probe.err"
}

all_folders=$(printf '%s\n' ${allowed[@]} | sort -u)
for lib in "${!allowed[@]}"; do
  for folder in $all_folders; do
    header=$(some_header "$folder")
    [[ -n $header ]] || continue
    if [[ " ${allowed[$lib]} " == *" $folder "* ]]; then
      # (the build itself proves that allowed includes compile)
      [[ -e "$build/layers/$lib/$header" ]] || fail "$lib cannot see its allowed $header"
    elif preprocess "$lib" "$header"; then
      fail "$lib can include $header against the layering"
    elif ! grep -q "No such file" "$build/layers/probe.err"; then
      fail "$lib including $header failed for another reason: $(head -3 "$build/layers/probe.err")"
    fi
  done
done

if ((failures > 0)); then
  echo "$failures layering failure(s)"
  exit 1
fi
echo "layering: ${#allowed[@]} libraries see exactly what docs/architecture.md allows"
