#!/usr/bin/env python3
"""Writes the bad-input corpus: one folder per format, each with its inputs and a MANIFEST.toml.

    python3 tests/corpus/generate.py

The manifest of a folder says where each input is planted and what reads it:

    device = "examples/presync/hermes"   # the device the input is planted into (a repo path,
                                         # or "skills" for the loopback skills device)
    path = "/root/.hermes/config.yaml"   # the device path the input replaces
    args = ["presync"]                   # the command that reads it
    exit = 1                             # the documented exit code

    [[input]]
    file = "unclosed-flow.yaml"          # the input, beside the manifest
    line = 2                             # optional: the error must name path:line
    what = "..."                         # why it is bad

Any key of the folder may be overridden per input. `serve = "/os/ota/metadata.json"` serves the
input from the loopback CDN instead of planting it; `names` is what the error must name when it
is not `path` (a skill, a command-line value); `SERVER` in a planted file is the loopback CDN's
base URL. The `cli` folder has no files: each input is an argument list, where `%XX` in an
argument of an input with `raw = true` is the byte 0xXX (for arguments that are not UTF-8),
`<c*N>` with `expand = true` is the character c N times, `ROOT` is the device root, and
`no_root = true` leaves `--root` out. tests/it/reliability_bad_input.rs runs every input.

Inputs are regenerated from this script; edit here, run it, and commit both.
"""

import io
import json
import os
import shutil
import stat
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

DEEP = 10_000


def toml_str(s):
    return json.dumps(s, ensure_ascii=False)


class Folder:
    def __init__(self, name, comment, **defaults):
        self.name = name
        self.comment = comment
        self.defaults = defaults
        self.inputs = []
        self.dir = os.path.join(HERE, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)

    def add(self, file, content, what, line=None, **over):
        if isinstance(content, str):
            content = content.encode()
        with open(os.path.join(self.dir, file), "wb") as f:
            f.write(content)
        self.inputs.append(dict(file=file, what=what, line=line, **over))

    def cli(self, name, args, what, **over):
        self.inputs.append(dict(file=None, name=name, args=args, what=what, **over))

    def write(self):
        out = [f"# {self.comment}"]
        for k, v in self.defaults.items():
            out.append(f"{k} = {fmt(v)}")
        for i in self.inputs:
            out.append("")
            out.append("[[input]]")
            for k, v in i.items():
                if v is None:
                    continue
                out.append(f"{k} = {fmt(v)}")
        with open(os.path.join(self.dir, "MANIFEST.toml"), "w") as f:
            f.write("\n".join(out) + "\n")
        return len(self.inputs)


def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    return toml_str(v)


def json_family(f, valid, key="agent_runtime"):
    """Malformed variants of a JSON document whose valid form is `valid` (one key per line)."""
    lines = valid.rstrip("\n").split("\n")
    f.add("truncated.json", "\n".join(lines[:-1]) + "\n", "cut off before the closing brace", line=len(lines))
    f.add("unterminated-string.json", '{\n  "a": "no end\n}\n', "a string with no closing quote", line=2)
    f.add("trailing-garbage.json", valid + "}}\n", "text after the document", line=len(lines) + 1)
    f.add("missing-comma.json", '{\n  "a": 1\n  "b": 2\n}\n', "two members with no comma", line=3)
    f.add("bare-word.json", '{\n  "a": yes\n}\n', "an unquoted word as a value", line=2)
    f.add("invalid-utf8.json", b'{\n  "a": "caf\xe9"\n}\n', "a Latin-1 byte in a string", line=2)
    f.add("nul-byte.json", b'{\n  "a": 1,\x00\n  "b": 2\n}\n', "a NUL byte between members", line=2)
    f.add("deep-nesting.json", '{"a": ' + "[" * DEEP + "]" * DEEP + "}\n", "10,000 nested arrays", line=1)
    f.add("only-comma.json", "{,}\n", "an object with only a comma", line=1)
    f.add("unclosed-array.json", '{\n  "a": [1, 2,\n', "an array that never closes")
    f.add("control-char.json", b'{\n  "a": "tab\there"\n}\n', "a raw control character in a string", line=2)
    f.add("bad-escape.json", '{\n  "a": "\\q"\n}\n', "an unknown escape", line=2)


def wrong_types(f):
    """Issue 26: a key osctl reads, holding a value of another type. Each was read as empty (the
    runtime then came from ROBOT.md, presync wrote that runtime's files, the boot pass seeded over
    the value); now every command that reads config.json refuses it, naming the line and the key."""
    user = '{\n  "httpPort": 5000,\n  "agent_runtime": ["hermes"],\n  "device_type": "lamp"\n}\n'
    must = "agent_runtime must be a string, found a list"
    f.add("wrong-type-list.json", user, "agent_runtime is a list (the user's shape)", line=3, names=must)
    f.add("wrong-type-number.json", '{\n  "httpPort": 5000,\n  "agent_runtime": 5\n}\n', "agent_runtime is a number",
          line=3, names="agent_runtime must be a string, found a number")
    for what, args, exit in [
        ("status", ["status"], 1),
        ("status --json", ["--json", "status"], 1),
        ("doctor (its report, on stdout)", ["doctor"], 3),
        ("reconcile (the boot pass)", ["reconcile"], 1),
        ("reconcile --only seed", ["reconcile", "--only", "seed"], 1),
        ("switch", ["switch", "hermes"], 1),
        ("migrate", ["migrate", "--from", "openclaw", "--to", "hermes"], 1),
        ("reset", ["reset", "--yes"], 1),
        ("skills list", ["skills", "list"], 1),
        ("skills sync", ["skills", "sync"], 1),
        ("mcp list", ["mcp", "list"], 1),
        ("mcp add", ["mcp", "add", "search", "--url", "https://mcp.example/x"], 1),
        ("mcp remove", ["mcp", "remove", "search"], 1),
        ("channel list", ["channel", "list"], 1),
        ("channel add", ["channel", "add", "telegram", "--token", "123:abc", "--user-id", "42"], 1),
        ("channel remove", ["channel", "remove", "telegram"], 1),
        ("presync of a named runtime", ["presync", "hermes"], 1),
    ]:
        name = "wrong-type-" + "-".join(a.strip("-") for a in args[:2]) + ".json"
        # doctor reports on stdout (exit 3: findings), the others fail with the error on stderr.
        out = {"stdout": True} if args == ["doctor"] else {}
        f.add(name, user, f"agent_runtime is a list; read by {what}", line=3, names=must, args=args, exit=exit, **out)
    for key, value, expected, found in [
        ("llm_config_mode", "true", "a string", "true or false"),
        ("llm_api_key", "12345678901234", "a string", "a number"),
        ("telegram_bot_token", '{"token": "123:abc"}', "a string", "an object"),
        ("channels_unsupported", '"whatsapp"', "a list of strings", "a string"),
        ("channels_unsupported", '["whatsapp", 3]', "a list of strings", "a list holding a number"),
        ("mcp_tools", '{"name": "search"}', "a list", "an object"),
        ("llm_disable_thinking", '"yes"', "true or false", "a string"),
        ("httpPort", '"5000"', "a port number (0 to 65535)", "a string"),
        ("openclaw_config_dir", '["/root/.openclaw"]', "a string", "a list"),
        ("device_type", "7", "a string", "a number"),
    ]:
        text = '{\n  "agent_runtime": "openclaw",\n  "%s": %s\n}\n' % (key, value)
        slug = found.split()[-1]
        f.add(f"wrong-type-{key}-{slug}.json", text, f"{key} is {found}", line=3,
              names=f"{key} must be {expected}, found {found}")


def main():
    total = 0
    folders = []

    # ---- config.json ------------------------------------------------------------------------
    f = Folder(
        "config-json",
        "config.json: the device's settings; every command that loads the device reads it.",
        device="examples/presync/openclaw", path="/root/config/config.json", args=["presync"], exit=1,
    )
    json_family(f, '{\n  "agent_runtime": "openclaw",\n  "device_type": "lamp"\n}\n')
    f.add("empty.json", "", "an empty file")
    f.add("bom.json", b'\xef\xbb\xbf{"agent_runtime": "openclaw"}\n', "a UTF-8 byte-order mark", line=1)
    f.add("top-level-array.json", '["agent_runtime", "openclaw"]\n', "an array, not an object", line=1)
    f.add("top-level-string.json", '"openclaw"\n', "a string, not an object", line=1)
    f.add("top-level-null.json", "null\n", "null, not an object", line=1)
    f.add("unknown-runtime.json", '{\n  "agent_runtime": "skynet",\n  "device_type": "lamp"\n}\n', "agent_runtime names no runtime")
    f.add("remote-runtime.json", '{\n  "agent_runtime": "openclaw-remote",\n  "device_type": "lamp"\n}\n', "a remote runtime, which osctl does not run")
    f.add("bad-llm-mode.json", '{\n  "agent_runtime": "openclaw",\n  "llm_config_mode": "sometimes"\n}\n', "llm_config_mode is not one of the three", line=3)
    f.add("device-type-dotdot.json", '{\n  "agent_runtime": "openclaw",\n  "device_type": "../../etc"\n}\n', "device_type climbs out of /opt/devices")
    f.add("device-type-slash.json", '{\n  "agent_runtime": "openclaw",\n  "device_type": "lamp/../../x"\n}\n', "device_type with a slash")
    f.add("huge-number.json", '{\n  "agent_runtime": "openclaw",\n  "httpPort": 1e999999\n}\n', "a number no float holds", line=3)
    f.add("lone-surrogate.json", '{\n  "agent_runtime": "openclaw",\n  "x": "\\ud800"\n}\n', "a lone UTF-16 surrogate escape", line=3)
    f.add("single-quotes.json", "{\n  'agent_runtime': 'openclaw'\n}\n", "JSON5 quotes in a strict JSON file", line=2)
    f.add("comment.json", '{\n  // a comment\n  "agent_runtime": "openclaw"\n}\n', "a comment in a strict JSON file", line=2)
    f.add("status-reads-it.json", '{\n  "agent_runtime": "openclaw",\n', "cut off; read by status", args=["status"])
    f.add("reconcile-reads-it.json", '{\n  "agent_runtime": "openclaw",\n', "cut off; read by reconcile", args=["reconcile"])
    f.add("migrate-reads-it.json", '{\n  "agent_runtime": "openclaw",\n', "cut off; read by migrate", args=["migrate", "--from", "openclaw", "--to", "hermes"])
    f.add("skills-reads-it.json", '{\n  "agent_runtime": "openclaw",\n', "cut off; read by skills list", args=["skills", "list"])
    f.add("reset-reads-it.json", '{\n  "agent_runtime": "openclaw",\n', "cut off; read by reset", args=["reset", "--yes"])
    wrong_types(f)
    folders.append(f)

    # ---- bootstrap.json ---------------------------------------------------------------------
    f = Folder(
        "bootstrap-json",
        "bootstrap.json: the OTA worker's config; skills sync reads the metadata URL and signing key.",
        device="skills", path="/root/config/bootstrap.json", args=["skills", "sync"], exit=1,
    )
    json_family(f, '{\n  "metadata_url": "http://127.0.0.1:9/os/ota/metadata.json"\n}\n')
    f.add("top-level-array.json", "[]\n", "an array, not an object", line=1)
    f.add("metadata-url-number.json", '{\n  "metadata_url": 42\n}\n', "metadata_url is a number", line=2,
          names="metadata_url must be a string, found a number")
    f.add("signing-key-list.json", '{\n  "metadata_url": "SERVER/os/ota/metadata.json",\n  "signing_public_key": ["AAAA"]\n}\n',
          "signing_public_key is a list", line=3, names="signing_public_key must be a string, found a list")
    f.add("metadata-url-ftp.json", '{\n  "metadata_url": "ftp://example.invalid/m.json"\n}\n', "metadata_url is not http(s)")
    f.add("bad-signing-key.json", '{\n  "metadata_url": "SERVER/os/ota/metadata.json",\n  "signing_public_key": "not base64!"\n}\n', "a signing key that is not base64", names="bootstrap.json")
    f.add("short-signing-key.json", '{\n  "metadata_url": "SERVER/os/ota/metadata.json",\n  "signing_public_key": "AAAA"\n}\n', "a signing key of 3 bytes", names="bootstrap.json")
    folders.append(f)

    # ---- agent_state.json -------------------------------------------------------------------
    f = Folder(
        "agent-state-json",
        "agent_state.json: the switch history; the persona reconciler reads it.",
        device="examples/presync/openclaw", path="/root/config/agent_state.json",
        args=["reconcile", "--only", "persona"], exit=1,
    )
    json_family(f, '{\n  "history": [\n    {"runtime": "openclaw", "at": 1}\n  ]\n}\n')
    f.add("history-not-list.json", '{\n  "history": "openclaw"\n}\n', "history is a string", line=2,
          names="history must be a list of switch entries")
    f.add("entry-without-runtime.json", '{\n  "history": [\n    {"at": 1}\n  ]\n}\n', "an entry with no runtime")
    f.add("at-is-text.json", '{\n  "history": [\n    {"runtime": "openclaw", "at": "yesterday"}\n  ]\n}\n', "at is text")
    f.add("top-level-array.json", "[]\n", "an array, not an object", line=1)
    folders.append(f)

    # ---- ROBOT.md -----------------------------------------------------------------------------
    f = Folder(
        "robot-md",
        "ROBOT.md: the robot profile; its front matter is read line by line, as the device reads it "
        "(so malformed YAML there is what the device tolerates); these are the inputs it refuses.",
        device="examples/presync/openclaw", path="/opt/devices/lamp/ROBOT.md", args=["presync"], exit=1,
    )
    f.add("invalid-utf8.md", b"---\nname: Lamp\ncapabilities:\n  audio: yes\n  caf\xe9: yes\n---\n", "a Latin-1 byte in a capability", line=5)
    f.add("invalid-utf8-body.md", b"---\nname: Lamp\n---\n# Lamp\n\xff\xfe\n", "invalid UTF-8 in the body", line=5)
    f.add("invalid-utf8-status.md", b"---\ngateway:\n  default: \xffopenclaw\n---\n", "invalid UTF-8 in gateway.default; read by status", line=3, args=["status"])
    f.add("invalid-utf8-skills.md", b"---\ncapabilities:\n  \xc3\x28: yes\n---\n", "an invalid two-byte sequence; read by skills sync", line=3, device="skills", args=["skills", "sync"])
    f.add("invalid-utf8-reset.md", b"---\nname: \xed\xa0\x80\n---\n", "an encoded surrogate; read by reset", line=2, args=["reset", "--yes"])
    folders.append(f)

    # ---- native files: JSON, JSONC and JSON5 ----------------------------------------------------
    for rt, path, dev in [
        ("openclaw", "/root/.openclaw/openclaw.json", "openclaw"),
        ("picoclaw", "/root/.picoclaw/config.json", "picoclaw"),
        ("claudecode-settings", "/root/.claude/settings.json", "claudecode"),
        ("claudecode-state", "/root/.claude.json", "claudecode"),
        ("opencode", "/root/.config/opencode/opencode.json", "opencode"),
    ]:
        f = Folder(
            f"native-json-{rt}",
            f"{path}: {dev}'s own file (JSON with comments; JSON5 for openclaw); presync reads it.",
            device=f"examples/presync/{dev}", path=path, args=["presync"], exit=1,
        )
        f.add("truncated.json", '{\n  // a comment\n  "a": {\n    "b": 1\n', "cut off inside an object")
        f.add("unterminated-string.json", '{\n  "a": "no end\n}\n', "a string with no closing quote", line=2)
        f.add("only-comma.json", "{,}\n", "an object with only a comma", line=1)
        f.add("double-comma.json", '{\n  "a": 1,,\n  "b": 2\n}\n', "two commas in a row", line=2)
        f.add("invalid-utf8.json", b'{\n  "a": "caf\xe9"\n}\n', "a Latin-1 byte", line=2)
        f.add("nul-byte.json", b'{\n  "a": 1\x00\n}\n', "a NUL byte", line=2)
        f.add("deep-nesting.json", '{"a": ' + "[" * DEEP + "]" * DEEP + "}\n", "10,000 nested arrays", line=1)
        f.add("unclosed-comment.json", '{\n  /* never closed\n  "a": 1\n}\n', "a block comment that never closes")
        f.add("top-level-array.json", "[1, 2]\n", "an array, not an object")
        if rt == "openclaw":
            f.add("json5-infinity.json", "{\n  gateway: { port: Infinity },\n}\n", "JSON5 Infinity, which osctl cannot keep as written", line=2)
        folders.append(f)

    # ---- native files: YAML ---------------------------------------------------------------------
    for name, path, dev in [
        ("hermes", "/root/.hermes/config.yaml", "hermes"),
        ("picoclaw-security", "/root/.picoclaw/.security.yml", "picoclaw"),
    ]:
        f = Folder(
            f"native-yaml-{name}",
            f"{path}: {dev}'s own YAML; presync reads it.",
            device=f"examples/presync/{dev}", path=path, args=["presync"], exit=1,
        )
        f.add("unclosed-flow.yaml", "model:\n  default: [a, b\nother: 1\n", "a flow sequence that never closes")
        f.add("bad-indent.yaml", "model:\n  default: x\n bad: y\n", "a key indented between levels", line=3)
        f.add("colon-start.yaml", "a: 1\nb: :\n", "a value that starts with a colon", line=2)
        f.add("tab-indent.yaml", "model:\n\tdefault: x\n", "a tab used for indentation", line=2)
        f.add("invalid-utf8.yaml", b"a: 1\nb: caf\xe9\n", "a Latin-1 byte", line=2)
        f.add("nul-byte.yaml", b"a: 1\nb: x\x00y\n", "a NUL byte", line=2)
        f.add("deep-nesting.yaml", "a: " + "[" * DEEP + "]" * DEEP + "\n", "10,000 nested sequences", line=1)
        f.add("alias-bomb.yaml", "".join(
            f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n" if p else f"{c}: &{c} [x,x,x,x,x,x,x,x,x]\n"
            for p, c in zip([None, "a", "b", "c", "d", "e", "f", "g"], "abcdefgh")
        ), "a billion-laughs alias expansion")
        f.add("unknown-alias.yaml", "a: *nowhere\n", "an alias to no anchor", line=1)
        f.add("duplicate-key.yaml", "model:\n  default: a\nmodel:\n  default: b\n", "the same top-level key twice", line=3)
        f.add("top-level-list.yaml", "- a\n- b\n", "a list, not a mapping")
        f.add("unterminated-quote.yaml", 'a: "no end\nb: 1\n', "a quoted scalar that never closes")
        folders.append(f)

    # ---- native files: TOML ---------------------------------------------------------------------
    f = Folder(
        "native-toml-codex",
        "/root/.codex/config.toml: codex's own TOML; presync reads it.",
        device="examples/presync/codex", path="/root/.codex/config.toml", args=["presync"], exit=1,
    )
    f.add("unclosed-table.toml", "[mcp_servers\nx = 1\n", "a table header that never closes", line=1)
    f.add("duplicate-key.toml", 'model = "a"\nmodel = "b"\n', "the same key twice", line=2)
    f.add("duplicate-table.toml", "[a]\nx = 1\n[a]\ny = 2\n", "the same table twice", line=3)
    f.add("key-then-table.toml", "a = 1\n[a]\nb = 2\n", "a value redefined as a table", line=2)
    f.add("bare-value.toml", "model = gpt\n", "an unquoted string value", line=1)
    # An inline table split over lines is valid TOML 1.1 (which the editor reads), so not here.
    f.add("invalid-utf8.toml", b'model = "caf\xe9"\n', "a Latin-1 byte", line=1)
    f.add("nul-byte.toml", b'model = "a"\x00\n', "a NUL byte", line=1)
    f.add("deep-nesting.toml", "a = " + "[" * DEEP + "]" * DEEP + "\n", "10,000 nested arrays", line=1)
    f.add("unterminated-string.toml", 'model = "no end\nx = 1\n', "a string with no closing quote", line=1)
    f.add("bad-date.toml", "when = 2025-13-45\n", "a date that does not exist", line=1)
    f.add("missing-equals.toml", "model \"gpt\"\n", "a key with no =", line=1)
    folders.append(f)

    # ---- .env -----------------------------------------------------------------------------------
    for name, path, dev in [
        ("hermes", "/root/.hermes/.env", "hermes"),
        ("codex", "/root/.codex/.env", "codex"),
        ("claudecode", "/root/.claudecode/.env", "claudecode"),
        ("opencode", "/root/.opencode/.env", "opencode"),
    ]:
        f = Folder(
            f"dotenv-{name}",
            f"{path}: a systemd EnvironmentFile; presync reads it.",
            device=f"examples/presync/{dev}", path=path, args=["presync"], exit=1,
        )
        f.add("unterminated-double.env", 'A=1\nB="no end\nC=3\n', "a double-quoted value that never closes", line=2)
        f.add("unterminated-single.env", "A=1\nB='no end\n", "a single-quoted value that never closes", line=2)
        f.add("invalid-utf8.env", b"A=1\nB=caf\xe9\n", "a Latin-1 byte", line=2)
        if name in ("hermes", "codex"):
            f.add("nul-byte.env", b"A=1\nB=x\x00y\n", "a NUL byte in a value", line=2)
            f.add("trailing-after-quote.env", 'A=1\nB="x"y\n', "text after a closing quote", line=2)
        folders.append(f)

    # ---- persona Markdown -----------------------------------------------------------------------
    f = Folder(
        "persona-md",
        "Persona Markdown (SOUL.md, IDENTITY.md, MEMORY.md, USER.md, daily notes); migrate reads them.",
        device="examples/presync/openclaw", args=["migrate", "--from", "openclaw", "--to", "hermes"], exit=1,
    )
    ws = "/root/.openclaw/workspace"
    f.add("soul-invalid-utf8.md", b"# Soul\nkind\n\xff\n", "invalid UTF-8 in SOUL.md", line=3, path=f"{ws}/SOUL.md")
    f.add("identity-invalid-utf8.md", b"# Identity\n- **Name:** L\xe9a\n", "a Latin-1 byte in IDENTITY.md", line=2, path=f"{ws}/IDENTITY.md")
    f.add("memory-invalid-utf8.md", b"# Memory\n- likes tea\n- \xc0\xaf\n", "an overlong encoding in MEMORY.md", line=3, path=f"{ws}/MEMORY.md")
    f.add("user-invalid-utf8.md", b"# User\n- **Name:** \xf5\x80\x80\x80\n", "a code point above U+10FFFF in USER.md", line=2, path=f"{ws}/USER.md")
    f.add("daily-invalid-utf8.md", b"# 2025-01-01\n\n- walked\n\xe2\x82\n", "a truncated sequence in a daily note", line=4, path=f"{ws}/memory/2025-01-01.md")
    f.add("soul-to-hermes-invalid.md", b"\xfe\xff# Soul\n", "a UTF-16 byte-order mark in hermes SOUL.md", line=1,
          path="/root/.hermes/SOUL.md", device="examples/presync/hermes", args=["migrate", "--from", "hermes", "--to", "openclaw"])
    f.add("hermes-memory-invalid.md", b"likes tea\n\xa7\nwalks\n", "a lone continuation byte in hermes MEMORY.md", line=2,
          path="/root/.hermes/memories/MEMORY.md", device="examples/presync/hermes", args=["migrate", "--from", "hermes", "--to", "codex"])
    f.add("presync-soul-source.md", b"# Lamp soul\n\xff\n", "invalid UTF-8 in the device's soul (soul_ref); presync reads it", line=2,
          path="/opt/devices/lamp/souls/lamp.md", args=["presync"])
    f.add("agents-invalid-utf8.md", b"# Agents\n\xff\n", "invalid UTF-8 in AGENTS.md, whose OS block presync keeps", line=2,
          path=f"{ws}/AGENTS.md", args=["presync"])
    f.add("reset-inline-block.md", b"# Agents\n\xff\n", "invalid UTF-8 in codex AGENTS.md, whose persona block reset strips", line=2,
          path="/root/.codex/workspace/AGENTS.md", args=["reset", "--yes"])
    folders.append(f)

    # ---- skill metadata (served) -----------------------------------------------------------------
    f = Folder(
        "skill-metadata",
        "The skills metadata (the OTA feed), served by the loopback CDN; skills sync reads it.",
        device="skills", serve="/os/ota/metadata.json", names="metadata", args=["skills", "sync"], exit=1,
    )
    f.add("not-json.json", "<html>503</html>\n", "an HTML error page")
    f.add("truncated.json", '{"skills": {"audio": {"version": "ab', "cut off")
    f.add("top-level-array.json", "[]\n", "an array")
    f.add("skills-is-list.json", '{"skills": ["audio"]}\n', "skills is a list")
    f.add("version-number.json", '{"skills": {"audio": {"version": 12}}}\n', "a version that is a number", names="audio")
    f.add("name-dotdot.json", '{"skills": {"../../etc": {"version": "abcdefabcdef"}}}\n', "a skill named ../../etc", names="../../etc")
    f.add("name-slash.json", '{"skills": {"a/b": {"version": "abcdefabcdef"}}}\n', "a skill name with a slash", names="a/b")
    f.add("name-empty.json", '{"skills": {"": {"version": "abcdefabcdef"}}}\n', "an empty skill name", names="``")
    f.add("name-hidden.json", '{"skills": {".osctl-staging": {"version": "abcdefabcdef"}}}\n', "a hidden skill name (the staging folder)", names=".osctl-staging")
    f.add("version-not-hex.json", '{"skills": {"audio": {"version": "../../zz"}}}\n', "a version that is not a hash prefix", names="../../zz")
    f.add("invalid-utf8.json", b'{"skills": {"caf\xe9": {"version": "abcdefabcdef"}}}\n', "a Latin-1 byte")
    f.add("deep-nesting.json", '{"skills": ' + "[" * DEEP + "]" * DEEP + "}\n", "10,000 nested arrays")
    f.add("signed-bad-base64.json", '{"skills": {}, "signed": {"format": "autonomous-ota/v1", "payload": "!!", "signature": {"algorithm": "ed25519", "value": "!!"}}}\n',
          "a signed envelope whose payload is not base64", bootstrap_key=True)
    f.add("signed-missing.json", '{"skills": {}}\n', "unsigned metadata where a signing key is configured", bootstrap_key=True)
    f.add("signed-wrong-algorithm.json", '{"skills": {}, "signed": {"format": "autonomous-ota/v1", "payload": "e30=", "signature": {"algorithm": "rsa", "value": "AAAA"}}}\n',
          "a signature algorithm other than ed25519", bootstrap_key=True)
    f.add("signed-bad-signature.json", '{"skills": {}, "signed": {"format": "autonomous-ota/v1", "payload": "e30=", "signature": {"algorithm": "ed25519", "value": "' + "A" * 86 + '=="}}}\n',
          "a signature that does not verify", bootstrap_key=True)
    folders.append(f)

    # ---- skill zips (served) --------------------------------------------------------------------
    f = Folder(
        "skill-zip",
        "Skill zips, served by the loopback CDN as /os/skills/audio.zip and listed under their own "
        "sha256 prefix (so the zip itself is opened and checked); skills sync reads them.",
        device="skills", serve="/os/skills/audio.zip", names="audio", args=["skills", "sync"], exit=1,
    )

    def z(entries, **kw):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data, *mode in entries:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (mode[0] if mode else 0o100644) << 16
                zf.writestr(info, data)
        return buf.getvalue()

    skill = [("SKILL.md", b"# Audio\n")]
    # Not bad input, so not here: a setuid bit (every file is written 0644 whatever the zip
    # says) and a zip with no SKILL.md (the device contract installs what the feed lists).
    f.add("zip-slip.zip", z(skill + [("../../../etc/cron.d/evil", b"* * * * * root sh\n")]), "an entry that climbs out (../)")
    f.add("absolute-path.zip", z(skill + [("/etc/passwd", b"x\n")]), "an absolute entry path")
    f.add("symlink-entry.zip", z(skill + [("data", b"/etc/shadow", 0o120777)]), "a symlink entry")
    f.add("backslash-dotdot.zip", z(skill + [("..\\..\\evil", b"x\n")]), "a Windows-style ..\\ entry")
    # Python's zipfile cuts a name at a NUL, so the byte is patched into both headers.
    f.add("nul-in-name.zip", z(skill + [("nul@name", b"x\n")]).replace(b"nul@name", b"nul\x00name"), "a NUL byte in an entry name")
    f.add("secret-env.zip", z(skill + [(".env", b"OPENAI_API_KEY=sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n")]), "a skill that ships a .env with an API key")
    f.add("developer-path.zip", z(skill + [("run.sh", b"#!/bin/sh\ncd /Users/dev/work/skill\n")]), "a developer-machine path")
    f.add("duplicate-entry.zip", z(skill + [("SKILL.md", b"# twice\n")]), "the same entry twice")
    f.add("not-a-zip.zip", b"this is not a zip archive\n", "text, not a zip")
    f.add("truncated.zip", z(skill + [("a.md", b"a" * 4000)])[:-30], "cut off before the central directory end")
    f.add("empty.zip", b"", "zero bytes")
    f.add("dotdot-dir.zip", z(skill + [("a/../../b", b"x\n")]), "a .. inside a nested path")
    f.add("device-file.zip", z(skill + [("dev", b"", 0o020644)]), "a character-device entry")
    bad = bytearray(z(skill + [("a.md", b"hello world " * 100)]))
    i = bad.find(b"PK\x01\x02")
    bad[i - 40:i - 20] = b"\x00" * 20  # damage the deflate stream of a.md, keep the directory
    f.add("corrupt-data.zip", bytes(bad), "a damaged deflate stream")
    f.add("wrong-version.zip", z(skill), "a zip whose sha256 does not match its listed version", version="000000000000")
    folders.append(f)

    # ---- command-line values ----------------------------------------------------------------------
    # A runtime name on the command line is refused by its value parser: a usage error (exit 2),
    # as an unknown channel is; the same name read from a file exits 1.
    f = Folder(
        "cli",
        "Command-line values (no file is planted). raw = true: %XX in an argument is the byte 0xXX; expand = true: <c*N> is c N times.",
        device="examples/presync/openclaw", exit=1,
    )
    f.cli("switch-unknown", ["switch", "skynet"], "an unknown runtime", names="skynet", exit=2)
    f.cli("switch-empty", ["switch", ""], "an empty runtime name", names="(empty)", exit=2)
    f.cli("switch-slash", ["switch", "open/claw"], "a runtime name with a slash", names="open/claw", exit=2)
    f.cli("switch-dotdot", ["switch", "../openclaw"], "a runtime name with ..", names="../openclaw", exit=2)
    f.cli("switch-huge", ["switch", "<x*100000>"], "a 100,000-byte runtime name", names="xxxx", expand=True, exit=2)
    f.cli("switch-remote", ["switch", "openclaw-remote"], "a remote runtime", names="openclaw-remote", exit=2)
    f.cli("switch-invalid-utf8", ["switch", "open%FFclaw"], "invalid UTF-8", raw=True, names="open", exit=2)
    f.cli("presync-unknown", ["presync", "skynet"], "an unknown runtime", names="skynet", exit=2)
    f.cli("presync-empty", ["presync", ""], "an empty runtime name", names="(empty)", exit=2)
    f.cli("presync-dotdot", ["presync", "../../etc"], "a runtime name with ..", names="../../etc", exit=2)
    f.cli("presync-invalid-utf8", ["presync", "%C3%28"], "invalid UTF-8", raw=True, names="(", exit=2)
    f.cli("migrate-unknown", ["migrate", "--from", "openclaw", "--to", "skynet"], "an unknown destination", names="skynet", exit=2)
    f.cli("migrate-slash", ["migrate", "--from", "a/b", "--to", "hermes"], "a source name with a slash", names="a/b", exit=2)
    f.cli("migrate-huge", ["migrate", "--from", "openclaw", "--to", "<h*100000>"], "a 100,000-byte name", names="hhhh", expand=True, exit=2)
    f.cli("migrate-invalid-utf8", ["migrate", "--from", "%FF", "--to", "hermes"], "invalid UTF-8", raw=True, names="not a runtime", exit=2)
    f.cli("skills-runtime-unknown", ["skills", "list", "--runtime", "skynet"], "an unknown runtime", names="skynet", exit=2)
    f.cli("skills-runtime-empty", ["skills", "sync", "--runtime", ""], "an empty runtime name", names="(empty)", exit=2)
    f.cli("skills-metadata-url-bad", ["skills", "sync", "--metadata-url", "not a url"], "a metadata URL that is not a URL", names="not a url")
    f.cli("skills-metadata-url-file", ["skills", "sync", "--metadata-url", "file:///etc/passwd"], "a file: URL", names="file:///etc/passwd")
    f.cli("skills-timeout-zero", ["skills", "sync", "--timeout", "0"], "a zero timeout", exit=2)
    f.cli("skills-timeout-huge", ["skills", "sync", "--timeout", "99999999999999999999999"], "a timeout beyond u64", exit=2)
    f.cli("reconcile-only-bogus", ["reconcile", "--only", "everything"], "an unknown step", exit=2)
    f.cli("lock-timeout-negative", ["--lock-timeout", "-1", "presync"], "a negative lock timeout", exit=2)
    f.cli("root-missing", ["--root", "/nonexistent/device/root", "status"], "a root that does not exist", names="/nonexistent/device/root", no_root=True)
    f.cli("root-is-file", ["--root", "ROOT/root/config/config.json", "status"], "a root that is a file", names="config.json", no_root=True)
    f.cli("root-invalid-utf8", ["--root", "/nonexistent/%FF", "status"], "a root that is not UTF-8 and does not exist", raw=True, names="/nonexistent/", no_root=True)
    f.cli("switch-installer-env-bad", ["switch", "hermes", "--installer-env", "NOEQUALS"], "an installer env without =", names="NOEQUALS")
    f.cli("switch-installer-env-empty-key", ["switch", "hermes", "--installer-env", "=value"], "an installer env with an empty name", names="=value")
    f.cli("switch-installer-sha-bad", ["switch", "hermes", "--installer-url", "https://127.0.0.1:9/i.sh", "--installer-sha256", "xyz"], "a sha256 that is not hex", names="xyz")
    f.cli("switch-installer-url-http", ["switch", "hermes", "--installer-url", "http://127.0.0.1:9/i.sh"], "a plain-HTTP installer URL", names="http://127.0.0.1:9/i.sh")
    f.cli("switch-settle-bad", ["switch", "hermes", "--settle", "soon"], "a settle time that is not a number", exit=2)
    f.cli("switch-settle-huge", ["switch", "hermes", "--settle", "1e300"], "a settle time beyond any duration", exit=2)
    f.cli("completions-bogus", ["completions", "tcsh"], "an unknown shell", exit=2)
    folders.append(f)

    for folder in folders:
        total += folder.write()
    print(f"{total} inputs in {len(folders)} folders")


if __name__ == "__main__":
    main()
