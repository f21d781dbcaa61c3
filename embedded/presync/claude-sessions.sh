#!/bin/sh
# Managed by osctl presync — do not edit.
# Unified claude coding-session picker: `claude-sessions` in a folder lists its
# sessions (terminal- AND Telegram-created) and resumes the one you pick.
[ "$(id -u)" -eq 0 ] || exec sudo /usr/local/bin/claude-sessions "$@"
exec /usr/local/bin/os-server claude-sessions "$@"
