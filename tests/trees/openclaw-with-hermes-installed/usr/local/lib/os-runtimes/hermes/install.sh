#!/usr/bin/env bash
# osctl's embedded installer for hermes (NousResearch Hermes Agent).
#
# `osctl switch hermes` writes this file to /usr/local/lib/os-runtimes/hermes/install.sh and runs
# it only when hermes is not installed (its unit is missing or its verify hook fails). osctl
# captures the output into /root/.hermes/install.log and kills the script after
# --install-timeout; each network step here is bounded on its own too.
#
# It installs and does not start anything. osctl itself writes the `service`, `verify` and
# `ready` hooks and the presync hook, runs presync, starts hermes-gateway.service, waits for it to
# stay up and only then stops the old runtime, so upstream's steps "stop openclaw", "run the
# presync hook" and "hermes gateway start" are osctl's, in an order it can roll back. jq and yq
# are not installed: they served upstream's shell presync, which osctl replaces with native code.
#
# Data (environment variables, with defaults):
#   HERMES_INSTALLER_URL  the Hermes Agent installer (https only)
#   OSCTL_RUNTIME_HOME    hermes' home (default /root/.hermes)
#   STEP_TIMEOUT          seconds one stage of the Hermes installer may take (default 1200)
set -euo pipefail

HERMES_INSTALLER_URL=${HERMES_INSTALLER_URL:-https://hermes-agent.nousresearch.com/install.sh}
HERMES_DIR=${OSCTL_RUNTIME_HOME:-/root/.hermes}
STEP_TIMEOUT=${STEP_TIMEOUT:-1200}
AGENT_DIR=/usr/local/lib/hermes-agent

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

# Replaces or appends KEY=VALUE in hermes' .env (the unit's EnvironmentFile), kept 0600.
upsert_env() {
  local file=$HERMES_DIR/.env tmp
  tmp=$(mktemp "$HERMES_DIR/.env.XXXXXX")
  grep -v "^$1=" "$file" >"$tmp" || true
  printf '%s=%s\n' "$1" "$2" >>"$tmp"
  chmod 0600 "$tmp"
  mv -f "$tmp" "$file"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

apt_get curl ca-certificates git
fetch "$HERMES_INSTALLER_URL" "$work/hermes-install.sh"
# The node-deps stage is skipped, as upstream does: it hangs on ARM.
for stage in prerequisites repository venv python-deps path config; do
  log "hermes installer stage $stage"
  timeout "$STEP_TIMEOUT" bash "$work/hermes-install.sh" --stage "$stage" --non-interactive </dev/null
done
command -v hermes >/dev/null 2>&1 || { echo "the Hermes installer left no hermes on PATH" >&2; exit 1; }
mkdir -p "$AGENT_DIR"
echo git >"$AGENT_DIR/.install_method"

log "API server settings in $HERMES_DIR/.env"
mkdir -p "$HERMES_DIR"
touch "$HERMES_DIR/.env"
chmod 0600 "$HERMES_DIR/.env"
upsert_env API_SERVER_ENABLED true
upsert_env API_SERVER_KEY hermes-local-api-key
upsert_env API_SERVER_CORS_ORIGINS http://localhost:3000

log "hermes gateway install (creates hermes-gateway.service)"
{ yes y || true; } | timeout 300 hermes gateway install --system --run-as-user root
log "hermes installed"
