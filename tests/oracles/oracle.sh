#!/usr/bin/env bash
# tests/oracles/oracle.sh - command-line front end of lib.sh, for tests that spawn a process
# (e.g. Rust's std::process::Command) instead of sourcing bash:
#   oracle.sh available                        rc 0 if the runtimes are installed
#   oracle.sh validate RT|all HOME [mcp-name...]   "OK ..." / "FAIL ...", rc 0/1 (all: rc = #failures)
#   oracle.sh resolved RT HOME                 one JSON line (see lib.sh)
# RT: openclaw codex claude opencode hermes. ORACLES / OSCTL_ORACLES_DIR pick the prefix.
set -uo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
usage() { sed -n '2,8p' "$0" >&2; exit 2; }
rt_ok() { case " $ORACLE_RUNTIMES " in *" $1 "*) ;; *) echo "unknown runtime '$1'" >&2; exit 2 ;; esac; }
cmd=${1:-}; shift || true
case $cmd in
  available) oracles_available ;;
  validate)
    [ $# -ge 2 ] || usage
    rt=$1; shift
    if [ "$rt" = all ]; then oracles_validate_all "$@"; else rt_ok "$rt"; "${rt}_validate" "$@"; fi ;;
  resolved) [ $# -eq 2 ] || usage; rt_ok "$1"; "${1}_resolved" "$2" ;;
  *) usage ;;
esac
