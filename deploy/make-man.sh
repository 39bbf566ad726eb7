#!/usr/bin/env bash
# make-man.sh HOOKD OUT VERSION: writes the hookd(1) man page to OUT from the binary's own --help
# (the top level and every subcommand's), so the page never disagrees with the flags.
# Run by `make install` (cmake/HookdInstall.cmake).
set -euo pipefail
hookd=$1
out=$2
version=$3
escape() { sed -e "s|$hookd|hookd|g" -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
{
  echo ".TH HOOKD 1 \"\" \"hookd $version\" \"User Commands\""
  echo ".SH NAME"
  echo "hookd \\- webhooks and callbacks that cannot be lost silently"
  echo ".SH SYNOPSIS"
  echo ".B hookd"
  echo "[\\fIOPTIONS\\fR] \\fISUBCOMMAND\\fR ..."
  echo ".SH DESCRIPTION"
  echo ".nf"
  "$hookd" --help | escape
  echo ".fi"
  for sub in $("$hookd" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'); do
    echo ".SH \"hookd $sub\""
    echo ".nf"
    "$hookd" "$sub" --help | escape
    echo ".fi"
  done
  echo ".SH FILES"
  echo ".TP"
  echo ".I /etc/hookd/hookd.toml"
  echo "the service's configuration (every key: docs/configuration.md)"
  echo ".TP"
  echo ".I /var/lib/hookd/hookd.db"
  echo "the service's SQLite database"
} >"$out"
