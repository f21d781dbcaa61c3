#!/usr/bin/env bash
# osctl's embedded installer for opencode (the opencode CLI behind os-server's bridge).
#
# `osctl switch opencode` writes this file to /usr/local/lib/os-runtimes/opencode/install.sh and
# runs it only when opencode is not installed (its verify hook fails). osctl captures the output
# into /root/.opencode/install.log and kills the script after --install-timeout; each network
# step here is bounded on its own too.
#
# It installs and does not start anything: osctl owns opencode.service (it writes the unit on
# every switch), runs presync, starts the unit, waits for it to stay up and only then stops the
# old runtime. The bridge itself (/usr/local/bin/os-server) is part of the OS image. jq is not
# installed: it served upstream's shell presync, which osctl replaces with native code.
#
# Data (environment variables, with defaults):
#   OPENCODE_VERSION        version to install (default 1.18.4)
#   OPENCODE_INSTALLER_URL  opencode's installer (https only)
#   OSCTL_RUNTIME_HOME      the bridge's state folder (default /root/.opencode)
#   STEP_TIMEOUT            seconds opencode's installer may take (default 900)
set -euo pipefail

OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.4}
OPENCODE_INSTALLER_URL=${OPENCODE_INSTALLER_URL:-https://opencode.ai/install}
OPENCODE_DIR=${OSCTL_RUNTIME_HOME:-/root/.opencode}
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

apt_get curl ca-certificates unzip
fetch "$OPENCODE_INSTALLER_URL" "$work/opencode-install"
log "opencode installer --version $OPENCODE_VERSION"
OPENCODE_INSTALL_DIR=/usr/local/bin HOME=/root timeout "$STEP_TIMEOUT" \
  bash "$work/opencode-install" --version "$OPENCODE_VERSION" </dev/null
# The installer may honour OPENCODE_INSTALL_DIR or use its own folder: take whatever it made.
found=
for candidate in /usr/local/bin/opencode /root/.opencode/bin/opencode /root/.local/bin/opencode; do
  if [ -x "$candidate" ]; then found=$candidate; break; fi
done
[ -n "$found" ] || { echo "the opencode installer left no opencode binary" >&2; exit 1; }
[ "$found" = /usr/local/bin/opencode ] || install -m 0755 "$found" /usr/local/bin/opencode
mkdir -p "$OPENCODE_DIR/workspace" "$OPENCODE_DIR/attachments"
log "opencode $OPENCODE_VERSION installed"
