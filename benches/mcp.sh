#!/usr/bin/env bash
# `osctl mcp add` end to end against each runtime's own "add an MCP server" command, in one run.
#
#   benches/mcp.sh [OSCTL_BINARY]          (default: the static release build, scripts/build-static)
#
# osctl: the whole command (device lock, journal recovery check, plan, durable atomic write with
# fsync, the try-restart planned; --root is not / so systemd is not called), adding a stdio server
# `fake` to the golden-case device (tests/cli/mcp/_device: native files with comments and another
# server), once per runtime, plus the --json form, which also renders the plan's diff, and once on
# tmpfs (fsync is free there, so the difference is the disk's flush latency). Peers: the
# runtimes' own commands as tests/oracles installed them (codex mcp add, claude mcp add -s user,
# opencode mcp add, openclaw mcp set), each on a fresh copy of a HOME that went through one
# `mcp list`, so first-run initialisation is not timed. Every run starts from a fresh copy (hyperfine
# --prepare, not timed). Medians; the machine is printed. With strace on PATH, one more run per
# runtime counts osctl's fsync-class calls (fsync, fdatasync, syncfs, sync_file_range). Needs the
# oracles (tests/oracles/install.sh) for the peers and hyperfine (the oracles' copy, else the
# system's).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=$(realpath "${1:-target/x86_64-unknown-linux-gnu/release/osctl}")
[ -x "$bin" ] || { echo "no binary at $bin (build it with scripts/build-static)" >&2; exit 1; }
P=${OSCTL_ORACLES_DIR:-$HOME/.cache/osctl-oracles}
HF=$P/bin/hyperfine; [ -x "$HF" ] || HF=$(command -v hyperfine) || { echo "no hyperfine" >&2; exit 1; }
F=$P/bin/fake-mcp.py
have_peers=1; [ -x "$P/bin/codex" ] || { have_peers=0; echo "note: no oracles in $P: osctl only" >&2; }

work=$(mktemp -d)
# The same osctl runs again on tmpfs, where fsync costs nothing: the difference is the disk's
# flush latency (osctl's durable write syncs the file and its folder; a one-file plan keeps no
# journal).
shm=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$work" "$shm"' EXIT
export TMPDIR=$P/tmp PATH=$P/node24/bin:$P/bin:$PATH
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCLAW_NO_AUTO_UPDATE=1 DO_NOT_TRACK=1 CI=1
mkdir -p "$TMPDIR"

echo "machine: $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
echo "binary:  $bin, $(stat -c %s "$bin") bytes"
echo

# syncs DIR COMMAND...: the fsync-class calls of one run on a fresh copy of DIR's template.
syncs() {
  command -v strace >/dev/null || { echo "-"; return; }
  local out=$work/strace.txt
  strace -f -c -e trace=fsync,fdatasync,syncfs,sync_file_range -o "$out" "$@" >/dev/null 2>&1 || { echo "failed"; return; }
  awk '$NF == "total" { n = $(NF-1) } END { print n + 0 }' "$out"
}

median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f ms" % (r["median"]*1e3)) if r["median"] < 1 else print("%.0f ms" % (r["median"]*1e3))' "$1"; }
check_exit() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; c=set(r.get("exit_codes") or [0]); sys.exit(0 if c=={0} else 1)' "$1"; }

# bench NAME RUNS TEMPLATE_DIR RUN_DIR COMMAND  (RUN_DIR is recreated from TEMPLATE_DIR before each run)
bench() {
  local name=$1 runs=$2 tpl=$3 run=$4 cmd=$5
  "$HF" --style none --runs "$runs" --warmup 1 2>/dev/null >/dev/null </dev/null \
    --prepare "rm -rf $run && cp -a $tpl $run" --export-json "$work/$name.json" "$cmd" || true
  if [ -f "$work/$name.json" ] && check_exit "$work/$name.json"; then median "$work/$name.json"; else echo "failed"; fi
}

# The device osctl edits, and a check that one run really adds the server.
cp -a "$repo/tests/cli/mcp/_device" "$work/device-tpl"
cp -a "$work/device-tpl" "$work/probe"
"$bin" --root "$work/probe" -q mcp add fake --runtime codex --allow-uninstalled -- /usr/bin/python3 "$F"
grep -q '^\[mcp_servers.fake\]' "$work/probe/root/.codex/config.toml" || { echo "osctl did not add the server" >&2; exit 1; }

# The peers' HOMEs, initialised once.
if [ "$have_peers" = 1 ]; then
  for p in openclaw codex claude opencode; do
    mkdir -p "$work/home-$p"
    (cd "$work"; HOME=$work/home-$p timeout 120 "$p" mcp list >/dev/null 2>&1 </dev/null) || true
  done
fi

osctl_add() { # RUNTIME FLAGS DEVICE
  echo "$bin --root $3 $2 mcp add fake --runtime $1 --allow-uninstalled -- /usr/bin/python3 $F"
}
cp -a "$work/device-tpl" "$shm/device-tpl"

cd "$work"
# shellcheck disable=SC2016 # backticks are Markdown
printf '| runtime | `osctl mcp add` | fsync-class calls | `osctl --json mcp add` | `osctl mcp add` on tmpfs | the runtime'"'"'s own command | its median |\n|---|---|---|---|---|---|---|\n'
for rt in openclaw hermes picoclaw codex claudecode opencode; do
  o=$(bench "osctl-$rt" 100 "$work/device-tpl" "$work/device" "$(osctl_add "$rt" -q "$work/device")")
  j=$(bench "osctl-json-$rt" 100 "$work/device-tpl" "$work/device" "$(osctl_add "$rt" --json "$work/device")")
  t=$(bench "osctl-tmpfs-$rt" 100 "$shm/device-tpl" "$shm/device" "$(osctl_add "$rt" -q "$shm/device")")
  rm -rf "$work/device" && cp -a "$work/device-tpl" "$work/device"
  # shellcheck disable=SC2046 # the command line is split on purpose
  n=$(syncs $(osctl_add "$rt" -q "$work/device"))
  peer="-"; pm="-"
  if [ "$have_peers" = 1 ]; then
    case $rt in
      codex) peer="codex mcp add fake -- …"
        pm=$(bench peer-codex 10 "$work/home-codex" "$work/run-codex" "env HOME=$work/run-codex codex mcp add fake -- /usr/bin/python3 $F") ;;
      claudecode) peer="claude mcp add -s user fake -- …"
        pm=$(bench peer-claude 10 "$work/home-claude" "$work/run-claude" "env HOME=$work/run-claude claude mcp add -s user fake -- /usr/bin/python3 $F") ;;
      opencode) peer="opencode mcp add fake -- …"
        pm=$(bench peer-opencode 5 "$work/home-opencode" "$work/run-opencode" "env HOME=$work/run-opencode opencode mcp add fake -- /usr/bin/python3 $F") ;;
      openclaw) peer="openclaw mcp set fake '{…}'"
        pm=$(bench peer-openclaw 5 "$work/home-openclaw" "$work/run-openclaw" "env HOME=$work/run-openclaw openclaw mcp set fake '{\"command\":\"/usr/bin/python3\",\"args\":[\"$F\"]}'") ;;
      hermes) peer="(hermes mcp add is interactive and always probes)" ;;
      picoclaw) peer="(no installable release)" ;;
    esac
  fi
  # shellcheck disable=SC2016 # backticks are Markdown
  printf '| %s | %s | %s | %s | %s | `%s` | %s |\n' "$rt" "$o" "$n" "$j" "$t" "$peer" "$pm"
done
