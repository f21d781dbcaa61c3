#!/usr/bin/env bash
# osctl's embedded installer for claudecode (the Claude Code CLI behind os-server's bridge).
#
# `osctl switch claudecode` writes this file to /usr/local/lib/os-runtimes/claudecode/install.sh
# and runs it only when claudecode is not installed (its verify hook fails). osctl captures the
# output into /root/.claudecode/install.log and kills the script after --install-timeout; each
# network step here is bounded on its own too.
#
# It installs and does not start anything: osctl owns claudecode.service (it writes the unit on
# every switch), runs presync, starts the unit, waits for it to stay up and only then stops the
# old runtime. The bridge itself (/usr/local/bin/os-server) is part of the OS image. No bun and
# no channel plugins: every channel is device-owned.
#
# Data (environment variables, with defaults):
#   CLAUDE_INSTALLER_URL  Anthropic's installer (https only)
#   OSCTL_RUNTIME_HOME    the bridge's state folder (default /root/.claudecode)
#   STEP_TIMEOUT          seconds the Claude Code installer may take (default 900)
set -euo pipefail

CLAUDE_INSTALLER_URL=${CLAUDE_INSTALLER_URL:-https://claude.ai/install.sh}
CLAUDECODE_DIR=${OSCTL_RUNTIME_HOME:-/root/.claudecode}
STEP_TIMEOUT=${STEP_TIMEOUT:-900}

log() { printf '== %s\n' "$*"; }

# Installs the missing Debian packages among "$@" (bounded).
apt_get() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -q
  DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# fetch URL DEST: https only, retried, with connect and total timeouts.
fetch() {
  log "download $1"
  curl --fail --silent --show-error --location --proto '=https' --retry 3 --retry-delay 2 \
    --connect-timeout 20 --max-time 600 -o "$2" "$1"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if command -v claude >/dev/null 2>&1; then
  log "claude is already installed: $(command -v claude)"
else
  apt_get curl ca-certificates
  fetch "$CLAUDE_INSTALLER_URL" "$work/claude-install.sh"
  log "Claude Code installer"
  HOME=/root timeout "$STEP_TIMEOUT" bash "$work/claude-install.sh" </dev/null
  [ -x /root/.local/bin/claude ] || { echo "the Claude Code installer left no /root/.local/bin/claude" >&2; exit 1; }
  ln -sfn /root/.local/bin/claude /usr/local/bin/claude
fi
mkdir -p "$CLAUDECODE_DIR/workspace"
log "claudecode installed"
