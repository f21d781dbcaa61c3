# shellcheck shell=bash
# tests/oracles/lib.sh - source me. Real agent runtimes as offline config oracles for osctl.
#
#   ORACLES=<prefix made by tests/oracles/install.sh>   (default ${OSCTL_ORACLES_DIR:-~/.cache/osctl-oracles})
#   source tests/oracles/lib.sh
#   openclaw_validate HOME [mcp-name...]   -> "OK openclaw mcp=[...]"  | "FAIL openclaw: reason"  (rc 0/1)
#   codex_validate / claude_validate / opencode_validate / hermes_validate   (same contract)
#   oracles_validate_all HOME [mcp-name...] -> one line per runtime, rc = number of failures
#   <rt>_resolved HOME  -> one JSON line: what the runtime itself resolved from HOME:
#       {"runtime","model","provider","base_url","mcp":{NAME:{"transport","command","args","env",
#        "url","headers","enabled"}},"source"}   (keys absent when the runtime has no value)
#   oracles_available   -> rc 0 if every runtime is installed (prints why not otherwise)
#
# Every call runs through _oracle_run: `env -i` (no host CODEX_HOME, CLAUDE_CONFIG_DIR, XDG_*,
# OPENCODE_*, HERMES_HOME, OPENCLAW_*, API keys), a scratch cwd outside any repo (all five also
# read project config from cwd), TMPDIR under the prefix, telemetry/update/model-fetch knobs off.
# Side effects: the runtimes create state under HOME (sqlite, logs, caches, backups): validate a
# copy if a test compares trees. OpenClaw also writes /tmp/openclaw/openclaw-YYYY-MM-DD.log and
# /tmp/openclaw-state-locks-<uid>/ (hard-coded). Keep test HOMEs out of TMPDIR of the oracle
# (Codex warns when CODEX_HOME is under its TMPDIR; ours is $ORACLES/tmp, so /tmp HOMEs are fine).
#
# PicoClaw has no installable package: there is no oracle for it here (see README.md).

: "${ORACLES:=${OSCTL_ORACLES_DIR:-$HOME/.cache/osctl-oracles}}"
ORACLE_RUNTIMES="openclaw codex claude opencode hermes"

oracles_available() {
  local b
  for b in $ORACLE_RUNTIMES; do
    [ -x "$ORACLES/bin/$b" ] || { echo "oracle runtime $b missing in $ORACLES (run tests/oracles/install.sh)"; return 1; }
  done
  [ -x "$ORACLES/venv/bin/python" ] || { echo "hermes venv missing in $ORACLES"; return 1; }
}

# _oracle_run HOME TIMEOUT_S CMD... : run CMD offline against HOME (see header).
_oracle_run() {
  local home=$1 to=$2 cwd rc=0; shift 2
  mkdir -p "$ORACLES/work" "$ORACLES/tmp"
  cwd=$(mktemp -d "$ORACLES/work/cwd.XXXXXX")
  (cd "$cwd" && env -i HOME="$home" PATH="$ORACLES/node24/bin:$ORACLES/bin:/usr/local/bin:/usr/bin:/bin" \
     TMPDIR="$ORACLES/tmp" LANG=C.UTF-8 TERM=dumb NO_COLOR=1 \
     DO_NOT_TRACK=1 OPENCLAW_NO_AUTO_UPDATE=1 \
     CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
     DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_MAX_RETRIES=0 MCP_TIMEOUT=3000 \
     OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
     timeout -k 5 "$to" "$@" </dev/null) || rc=$?
  rm -rf "$cwd"
  return "$rc"
}

# _names_check RT PY_EXPR EXPECTED... : JSON on stdin; PY_EXPR (over `d`) yields the server names.
_names_check() {
  local rt=$1 expr=$2; shift 2
  python3 -c '
import json, sys
rt, expr, want = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(sys.stdin)
names = sorted(eval(expr))
miss = [n for n in want if n not in names]
print(("FAIL %s: missing MCP servers %s; runtime sees %s" % (rt, miss, names)) if miss else ("OK %s mcp=%s" % (rt, names)))
sys.exit(1 if miss else 0)' "$rt" "$expr" "$@"
}

_oneline() { tr -s '\n\t ' '   ' | sed 's/\x1b\[[0-9;]*m//g; s/ *$//'; }

# ---------------- OpenClaw 2026.9.6: ~/.openclaw/openclaw.json (JSON5, closed schema), mcp.servers.<name>
openclaw_validate() {
  local h=$1 out; shift
  out=$(_oracle_run "$h" 120 env CI=1 openclaw config validate --json 2>/dev/null) ||
    { echo "FAIL openclaw: config validate: $(printf '%s' "$out" | _oneline)"; return 1; }
  out=$(_oracle_run "$h" 120 env CI=1 openclaw mcp status --json 2>/dev/null) ||
    { echo "FAIL openclaw: mcp status: $(printf '%s' "$out" | _oneline)"; return 1; }
  # `config validate` accepts entries without command/url; `mcp status` marks them ok:false
  printf '%s' "$out" | python3 -c '
import json, sys
bad = [s["name"] for s in json.load(sys.stdin)["servers"] if not s.get("ok")]
if bad: print("FAIL openclaw: invalid MCP transport for %s" % bad)
sys.exit(1 if bad else 0)' || return 1
  if [ "${ORACLE_STRICT:-0}" = 1 ]; then   # also: stdio command on PATH, cwd exists, TLS files
    _oracle_run "$h" 120 env CI=1 openclaw mcp doctor --json >/dev/null 2>&1 ||
      { echo "FAIL openclaw: mcp doctor (ORACLE_STRICT=1)"; return 1; }
  fi
  printf '%s' "$out" | _names_check openclaw '[s["name"] for s in d["servers"]]' "$@"
}
openclaw_resolved() {
  local h=$1 mcp model
  mcp=$(_oracle_run "$h" 120 env CI=1 openclaw mcp list --json 2>/dev/null) || { echo "openclaw mcp list failed" >&2; return 1; }
  model=$(_oracle_run "$h" 120 env CI=1 openclaw config get agents.defaults.model --json 2>/dev/null) || model=null
  python3 -c '
import json, sys
mcp, model = json.loads(sys.argv[1] or "{}"), json.loads(sys.argv[2] or "null")
if isinstance(model, dict): model = model.get("primary")
out = {"runtime": "openclaw", "source": "openclaw mcp list --json; config get agents.defaults.model", "mcp": {}}
if model:
    out["model"] = model
    if "/" in model: out["provider"] = model.split("/", 1)[0]
for n, e in mcp.items():
    r = {"transport": e.get("transport") or ("stdio" if "command" in e else "http" if "url" in e else None)}
    if r["transport"] == "streamable-http": r["transport"] = "http"
    for k in ("command", "args", "env", "url", "headers", "enabled"):
        if k in e: r[k] = e[k]
    out["mcp"][n] = r
print(json.dumps(out, sort_keys=True))' "$mcp" "$model"
}
openclaw_skills()  { _oracle_run "$1" 120 env CI=1 openclaw skills list --json 2>/dev/null |
  python3 -c 'import json,sys; [print(s["name"], s["source"], sep="\t") for s in json.load(sys.stdin)["skills"] if not s.get("bundled")]'; }
openclaw_persona() { _oracle_run "$1" 120 env CI=1 openclaw agents list --json 2>/dev/null; }  # identityName/Emoji

# ---------------- Codex 0.171.0: ~/.codex/config.toml (typed; unknown keys ignored), [mcp_servers.<name>]
codex_validate() {
  local h=$1 out err; shift
  mkdir -p "$ORACLES/tmp"; err=$(mktemp "$ORACLES/tmp/codex-err.XXXXXX")
  # `mcp list` loads the whole config.toml into typed structs (model, sandbox_mode, providers...)
  out=$(_oracle_run "$h" 60 codex mcp list --json 2>"$err") ||
    { echo "FAIL codex: $(grep -v -E '^\s+[0-9]+: |Stack backtrace|^WARNING: proceeding' "$err" | _oneline)"; rm -f "$err"; return 1; }
  rm -f "$err"
  printf '%s' "$out" | _names_check codex '[s["name"] for s in d]' "$@"
}
# MCP: `codex mcp list --json` (runtime-resolved). Model/provider: no offline CLI prints them
# (`codex exec` banner and `app-server config/read` do, but both touch the network), so they are
# read from config.toml with tomllib after codex_validate has type-checked the file.
codex_resolved() {
  local h=$1 mcp
  mcp=$(_oracle_run "$h" 60 codex mcp list --json 2>/dev/null) || { echo "codex mcp list failed" >&2; return 1; }
  python3 -c '
import json, os, sys, tomllib
mcp, home = json.loads(sys.argv[1]), sys.argv[2]
p = os.path.join(home, ".codex", "config.toml")
cfg = tomllib.load(open(p, "rb")) if os.path.exists(p) else {}
out = {"runtime": "codex", "source": "codex mcp list --json; model/provider from config.toml", "mcp": {}}
if cfg.get("model"): out["model"] = cfg["model"]
prov = cfg.get("model_provider")
if prov:
    out["provider"] = prov
    bu = (cfg.get("model_providers") or {}).get(prov, {}).get("base_url")
    if bu: out["base_url"] = bu
for s in mcp:
    t = s["transport"]; r = {"enabled": s.get("enabled")}
    if t["type"] == "stdio":
        r.update(transport="stdio", command=t.get("command"), args=t.get("args") or [], env=t.get("env") or {})
    else:
        r.update(transport="http", url=t.get("url"), headers=t.get("http_headers") or {})
        if t.get("env_http_headers"): r["env_headers"] = t["env_http_headers"]
        if t.get("bearer_token_env_var"): r["bearer_token_env_var"] = t["bearer_token_env_var"]
    out["mcp"][s["name"]] = r
print(json.dumps(out, sort_keys=True))' "$mcp" "$h"
}
codex_prompt() { _oracle_run "$1" 60 codex debug prompt-input "osctl oracle" 2>/dev/null; }  # skills + AGENTS.md

# ---------------- Claude Code 2.1.332: ~/.claude.json (mcpServers = user scope) + ~/.claude/settings.json
claude_validate() {
  local h=$1 out doc; shift
  # Asking for a server that does not exist lists the *valid* servers without spawning any.
  out=$(_oracle_run "$h" 60 claude mcp get __osctl_oracle_probe__ 2>&1)
  case $out in
    *'No MCP server named'*) ;;
    *) echo "FAIL claude: ~/.claude.json unreadable: $(printf '%s' "$out" | _oneline)"; return 1 ;;
  esac
  doc=$(_oracle_run "$h" 60 claude doctor 2>&1)   # rc is always 0: grep its report
  if printf '%s\n' "$doc" | grep -q '^Invalid settings'; then   # settings.json errors + skipped mcpServers
    echo "FAIL claude: $(printf '%s\n' "$doc" | sed -n '/^Invalid settings/,/^$/p' | _oneline)"; return 1
  fi
  printf '%s' "$out" | python3 -c '
import json, re, sys
m = re.search(r"Configured servers: (.*)", sys.stdin.read())
print(json.dumps(m.group(1).strip().split(", ") if m else []))' | _names_check claude 'd' "$@"
}
# MCP: `claude mcp get NAME` per valid server (NB: health-checks it: spawns stdio servers, dials
# URLs, MCP_TIMEOUT=3 s). Model: the init event of `claude -p` with --strict-mcp-config and a
# --settings override that points ANTHROPIC_BASE_URL at 127.0.0.1:9 (nothing leaves the host).
claude_resolved() {
  local h=$1 names n init gets=""
  names=$(_oracle_run "$h" 60 claude mcp get __osctl_oracle_probe__ 2>&1 |
          sed -n 's/.*Configured servers: //p' | tr -d ' ' | tr ',' ' ')
  for n in $names; do
    gets+="@@SERVER $n"$'\n'"$(_oracle_run "$h" 60 claude mcp get "$n" 2>&1)"$'\n'
  done
  init=$(_oracle_run "$h" 60 env ANTHROPIC_API_KEY=oracle-dummy claude -p x --strict-mcp-config \
           --settings '{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:9"}}' \
           --output-format stream-json --verbose 2>/dev/null | sed -n 1p)
  python3 -c '
import json, re, sys
gets, init = sys.argv[1], sys.argv[2]
out = {"runtime": "claude", "source": "claude mcp get NAME; claude -p init event", "mcp": {}}
try:
    ev = json.loads(init)
    if ev.get("model"): out["model"] = ev["model"]
except ValueError:
    pass
for block in gets.split("@@SERVER ")[1:]:
    name, _, body = block.partition("\n")
    r, section = {}, None
    for line in body.splitlines():
        m = re.match(r"^  (\w[\w ]*): ?(.*)$", line)
        if m:
            k, v = m.group(1), m.group(2); section = None
            if k == "Type": r["transport"] = "stdio" if v == "stdio" else v
            elif k == "Command": r["command"] = v
            elif k == "Args": r["args"] = v.split(" ") if v else []
            elif k == "URL": r["url"] = v
            elif k in ("Environment", "Headers"): section = "env" if k == "Environment" else "headers"; r[section] = {}
            continue
        m = re.match(r"^    ([^=:]+)(?:=|: )(.*)$", line)
        if m and section: r[section][m.group(1)] = m.group(2)
    out["mcp"][name] = r
print(json.dumps(out, sort_keys=True))' "$gets" "$init"
}
claude_context() { _oracle_run "$1" 60 claude -p /context 2>/dev/null; }  # Memory files + Skills tables

# ---------------- opencode 1.18.33: ~/.config/opencode/opencode.json[c] (JSONC), mcp.<name>
# `debug config` prints the merged config. Unknown keys are dropped silently, and a malformed
# entry can be reduced to {enabled: true} with rc 0, so the resolved entries are shape-checked too.
opencode_validate() {
  local h=$1 out; shift
  out=$(_oracle_run "$h" 60 opencode debug config 2>&1) ||
    { echo "FAIL opencode: $(printf '%s' "$out" | _oneline)"; return 1; }
  printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin); bad = []
for n, e in (d.get("mcp") or {}).items():
    t = e.get("type")
    if t == "local":
        if not (isinstance(e.get("command"), list) and e["command"]): bad.append("%s: local without command list" % n)
    elif t == "remote":
        if not e.get("url"): bad.append("%s: remote without url" % n)
    elif "enabled" in e and len(e) == 1:
        pass   # {"enabled": false} overrides are allowed
    else:
        bad.append("%s: resolved to %s" % (n, json.dumps(e)))
if bad: print("FAIL opencode: " + "; ".join(bad))
sys.exit(1 if bad else 0)' || return 1
  printf '%s' "$out" | _names_check opencode 'list((d.get("mcp") or {}).keys())' "$@"
}
opencode_resolved() { # NB: opencode masks header values as "***" in this output
  local h=$1 out
  out=$(_oracle_run "$h" 60 opencode debug config 2>/dev/null) || { echo "opencode debug config failed" >&2; return 1; }
  printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
out = {"runtime": "opencode", "source": "opencode debug config", "mcp": {}}
m = d.get("model")
if m:
    out["model"] = m
    if "/" in m:
        out["provider"] = m.split("/", 1)[0]
        bu = ((d.get("provider") or {}).get(out["provider"]) or {}).get("options", {}).get("baseURL")
        if bu: out["base_url"] = bu
for n, e in (d.get("mcp") or {}).items():
    r = {"enabled": e.get("enabled", True)}
    if e.get("type") == "local":
        c = e.get("command") or []
        r.update(transport="stdio", command=c[0] if c else None, args=c[1:], env=e.get("environment") or {})
    elif e.get("type") == "remote":
        r.update(transport="http", url=e.get("url"), headers=e.get("headers") or {})
    out["mcp"][n] = r
print(json.dumps(out, sort_keys=True))'
}
# OPENCODE_DISABLE_EXTERNAL_SKILLS=1: opencode also loads ~/.claude/skills and ~/.agents/skills, and a
# name present in two roots resolves nondeterministically. ORACLE_OPENCODE_EXTERNAL=1 keeps them.
opencode_skills() {
  _oracle_run "$1" 60 env OPENCODE_DISABLE_EXTERNAL_SKILLS=$((1 - ${ORACLE_OPENCODE_EXTERNAL:-0})) \
    opencode debug skill 2>/dev/null |
  python3 -c 'import json,sys; [print(s["name"], s["location"], sep="\t") for s in json.load(sys.stdin)]'
}

# ---------------- Hermes 0.19.0: ~/.hermes/config.yaml (mcp_servers.<name>) + ~/.hermes/.env
# Hermes never fails on bad YAML (warns, falls back to defaults, rc 0), so this parses strictly
# with hermes' own modules, then loads servers through tools.mcp_tool._load_mcp_config().
_HERMES_NONET='import socket
def _deny(*a, **k): raise OSError("network disabled by osctl oracle")
socket.getaddrinfo = socket.create_connection = _deny
'
hermes_validate() {
  local h=$1 out; shift
  out=$(_oracle_run "$h" 90 "$ORACLES/venv/bin/python" -c "$_HERMES_NONET"'
import sys, json, yaml
from hermes_cli.config import get_config_path, get_env_path
from hermes_cli.mcp_security import validate_mcp_server_entry
errs = []
p = get_config_path()
try:
    raw = yaml.safe_load(p.read_text(encoding="utf-8")) if p.exists() else {}
except Exception as e:
    print("FAIL hermes: %s: %s" % (p, str(e).replace("\n", " "))); sys.exit(1)
raw = raw or {}
if not isinstance(raw, dict):
    print("FAIL hermes: config.yaml top level is not a mapping"); sys.exit(1)
servers = raw.get("mcp_servers") or {}
if not isinstance(servers, dict):
    errs.append("mcp_servers is not a mapping"); servers = {}
for n, e in servers.items():
    if not isinstance(e, dict):
        errs.append("%s: entry is not a mapping" % n); continue
    if ("command" in e) == ("url" in e):
        errs.append("%s: needs exactly one of command/url" % n)
    if "args" in e and not (isinstance(e["args"], list) and all(isinstance(a, str) for a in e["args"])):
        errs.append("%s: args must be a list of strings" % n)
    for k in ("env", "headers"):
        if k in e and not isinstance(e[k], dict):
            errs.append("%s: %s must be a mapping" % (n, k))
    errs += validate_mcp_server_entry(n, e)
ep = get_env_path()
if ep.exists():
    from dotenv.parser import parse_stream
    with open(ep, encoding="utf-8") as f:
        bad = [b.original.line for b in parse_stream(f) if b.error]
    if bad:
        errs.append(".env: unparsable lines %s" % bad)
if errs:
    print("FAIL hermes: " + "; ".join(errs)); sys.exit(1)
from tools.mcp_tool import _load_mcp_config
print(json.dumps(sorted(_load_mcp_config().keys())))' 2>&1) ||
    { printf '%s\n' "$out" | grep -m1 '^FAIL' || echo "FAIL hermes: $(printf '%s' "$out" | _oneline)"; return 1; }
  _oracle_run "$h" 60 hermes mcp list >/dev/null 2>&1 || { echo "FAIL hermes: 'hermes mcp list' crashed"; return 1; }
  printf '%s\n' "$out" | tail -1 | _names_check hermes 'd' "$@"
}
hermes_resolved() { # servers after hermes' own filtering and ${VAR} interpolation from .env
  _oracle_run "$1" 90 "$ORACLES/venv/bin/python" -c "$_HERMES_NONET"'
import json
from hermes_cli.config import load_config
from tools.mcp_tool import _load_mcp_config
cfg = load_config(); m = cfg.get("model")
out = {"runtime": "hermes", "source": "hermes_cli.config.load_config; tools.mcp_tool._load_mcp_config", "mcp": {}}
if isinstance(m, dict):
    for k, v in (("model", m.get("default")), ("provider", m.get("provider")), ("base_url", m.get("base_url"))):
        if v: out[k] = v
elif m:
    out["model"] = m
for n, e in _load_mcp_config().items():
    r = {"enabled": e.get("enabled", True)}
    if "command" in e:
        r.update(transport="stdio", command=e["command"], args=e.get("args") or [], env=e.get("env") or {})
    else:
        r.update(transport=e.get("transport") or "http", url=e.get("url"), headers=e.get("headers") or {})
    out["mcp"][n] = r
print(json.dumps(out, sort_keys=True))' 2>/dev/null | tail -1
}
hermes_prompt() { # the system prompt a fresh CLI session gets: SOUL.md, memories, skills index
  _oracle_run "$1" 90 "$ORACLES/venv/bin/python" -c "$_HERMES_NONET"'
import agent.model_metadata as mm; mm.fetch_model_metadata = lambda *a, **k: {}
from hermes_cli.prompt_size import _build_inspection_agent
from agent.system_prompt import build_system_prompt
print(build_system_prompt(_build_inspection_agent("cli")))' 2>/dev/null
}

# Run every validator on one HOME; one line per runtime; rc = number of failures.
oracles_validate_all() {
  local h=$1 rt n=0; shift
  for rt in $ORACLE_RUNTIMES; do "${rt}_validate" "$h" "$@" || n=$((n + 1)); done
  return "$n"
}
