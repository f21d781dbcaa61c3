# Managed by osctl presync — do not edit.
# Interactive login shells get the active runtime's CLI environment (its .env); scripts and cron
# do not (the guard below returns early for non-interactive shells).
# shellcheck disable=SC2317 # `exit` is reached only when the file is run instead of sourced
case "$-" in *i*) ;; *) return 2>/dev/null || exit 0 ;; esac
_rt="$(sed -n 's/.*"agent_runtime"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "/root/config/config.json" 2>/dev/null | head -1)"
case "$_rt" in
  claudecode)
    # shellcheck source=/dev/null
    if [ -f "/root/.claudecode/.env" ]; then set -a; . "/root/.claudecode/.env"; set +a; fi
    export IS_SANDBOX=1
    ;;
  codex)
    # shellcheck source=/dev/null
    if [ -f "/root/.codex/.env" ]; then set -a; . "/root/.codex/.env"; set +a; fi
    export CODEX_HOME="/root/.codex"
    ;;
  opencode)
    # shellcheck source=/dev/null
    if [ -f "/root/.opencode/.env" ]; then set -a; . "/root/.opencode/.env"; set +a; fi
    ;;
esac
unset _rt
