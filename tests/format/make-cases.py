#!/usr/bin/env python3
"""Writes the conformance cases of tests/it/format_conformance/ (run from anywhere).

Each suite folder holds three kinds of case:
  valid/    the runtime reads it: osctl must edit it in place;
  invalid/  the runtime's reader refuses it: osctl must refuse it, naming line and column;
  refused/  the runtime reads it, but osctl refuses it by design (the reason is the case's
            name): duplicate keys, values osctl cannot keep exactly, and the like.
The judges (second parsers) check the valid cases' results, and that they agree with the
folder a case is in.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

JSON5 = {
    "valid": {
        "comments": "// line\n/* block */\n{\n  // inside\n  \"a\": 1, /* after */\n}\n",
        "unquoted-keys": "{\n  gateway: {mode: 'local', port: 18789},\n  $dollar: 1,\n  _under: 2,\n}\n",
        "single-quotes": "{'a': 'it\\'s', \"b\": 'say \"hi\"'}\n",
        "hex-and-signs": "{a: 0x1F, b: -0x10, c: +3, d: .5, e: 5., f: -.25e2}\n",
        "escapes": "{a: '\\x41\\u00e9\\v\\0\\q', b: \"tab\\tnew\\nline\"}\n",
        "line-continuation": "{a: 'one \\\ntwo'}\n",
        "trailing-commas": "{\n  a: [1, 2, 3,],\n  b: {c: 1,},\n}\n",
        "one-line": "{\"gateway\": {\"mode\": \"local\"}, \"ui\": {\"theme\": \"dark\"}}\n",
        "one-line-spaced": "{ \"a\": 1, \"b\": [ 1, 2 ] }\n",
        "no-final-newline": "{\"a\": 1}",
        "crlf": "{\r\n  \"a\": 1,\r\n  // c\r\n  \"b\": 2\r\n}\r\n",
        "unicode-key": "{é: 1, 'ключ': 2, \"日本\": 3}\n",
        "nested": "{a: {b: {c: {d: {e: [1, {f: 2}]}}}}}\n",
        "empty-object": "{}\n",
        "whitespace-json5": "{\u000ba:\u000c1,\u00a0b: 2}\n",
        "existing-mcp": "{\n  mcp: {\n    servers: {\n      // the owner's\n      gh: {command: 'gh', args: ['--stdio']},\n    },\n  },\n}\n",
        "u2028-in-string": "{a: 'line\u2028sep'}\n",
        "tabs": "{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"c\": 2\n\t}\n}\n",
        "big-int-64": "{a: 9223372036854775807, b: -9223372036854775808, c: 18446744073709551615}\n",
        "exponents": "{a: 1e3, b: 1E-3, c: 2.5e+2}\n",
        "strings-with-comment-marks": "{a: '// not a comment', b: \"/* nor this */\"}\n",
        "bom": "\ufeff{\"a\": 1}\n",
    },
    "invalid": {
        "missing-comma": "{\n  a: 1\n  b: 2\n}\n",
        "double-comma": "{a: 1,, b: 2}\n",
        "unclosed-object": "{\n  a: {b: 1}\n",
        "unclosed-string": "{a: 'abc}\n",
        "raw-newline-in-string": "{a: 'one\ntwo'}\n",
        "dash-in-key": "{a-b: 1}\n",
        "digit-key": "{1a: 1}\n",
        "leading-zero": "{a: 01}\n",
        "bad-hex": "{a: 0xZZ}\n",
        "unclosed-comment": "{a: 1} /* never closed\n",
        "bare-word": "{a: hello}\n",
        "two-values": "{a: 1} {b: 2}\n",
        "lone-comma": "{,}\n",
        "digit-escape": "{a: '\\1'}\n",
    },
    "refused": {
        "duplicate-key": "{\n  a: 1,\n  'a': 2\n}\n",
        "infinity": "{a: Infinity}\n",
        "nan": "{a: NaN}\n",
        "int-beyond-64-bits": "{a: 123456789012345678901234567890}\n",
        "top-level-array": "[1, 2]\n",
    },
}

# opencode: JSON plus comments and trailing commas (checked against opencode 1.18: unquoted and
# single-quoted keys, hex, +1, .5, \x escapes, missing and double commas are refused)
JSONC = {
    "valid": {
        "comments": "// line\n{\n  /* block */\n  \"$schema\": \"https://opencode.ai/config.json\", // after\n}\n",
        "trailing-commas": "{\n  \"a\": [1, 2,],\n  \"b\": {\"c\": 1,},\n}\n",
        "one-line": "{\"$schema\": \"https://opencode.ai/config.json\", \"theme\": \"dark\"}\n",
        "no-final-newline": "{\"a\": 1}",
        "crlf": "{\r\n  \"a\": 1\r\n}\r\n",
        "existing-mcp": "{\n  \"mcp\": {\n    // mine\n    \"gh\": {\"type\": \"local\", \"command\": [\"gh\"], \"enabled\": true},\n  },\n}\n",
        "strict-json": "{\n  \"a\": [1, 2.5, -3e2, true, false, null, \"s\\u00e9\\n\"]\n}\n",
        "empty-object": "{}\n",
        "four-spaces": "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n",
        "comment-only-lines": "{\n  // one\n  // two\n  \"a\": 1\n  // end\n}\n",
    },
    "invalid": {
        "unquoted-key": "{mcp: {}}\n",
        "single-quoted": "{'mcp': {}}\n",
        "hex": "{\"a\": 0x10}\n",
        "plus": "{\"a\": +1}\n",
        "bare-decimal": "{\"a\": .5}\n",
        "trailing-decimal": "{\"a\": 5.}\n",
        "x-escape": "{\"a\": \"\\x41\"}\n",
        "line-continuation": "{\"a\": \"one\\\ntwo\"}\n",
        "missing-comma": "{\"a\": 1 \"b\": 2}\n",
        "double-comma": "{\"a\": 1,,}\n",
        "infinity": "{\"a\": Infinity}\n",
        "tab-in-string": "{\"a\": \"tab\there\"}\n",
        "leading-zero": "{\"a\": 01}\n",
        "vertical-tab": "{\"a\": 1}\u000b\n",
        "unclosed": "{\"a\": [1, 2}\n",
    },
    "refused": {
        "duplicate-key": "{\n  \"a\": 1,\n  \"a\": 2\n}\n",
        "int-beyond-64-bits": "{\"a\": 123456789012345678901234567890}\n",
    },
}

# Claude Code's .mcp.json and picoclaw's config.json: strict JSON
JSON = {
    "valid": {
        "pretty": "{\n  \"a\": 1,\n  \"b\": [true, false, null]\n}\n",
        "one-line": "{\"mcpServers\": {\"gh\": {\"command\": \"gh\", \"args\": [\"--stdio\"]}}}\n",
        "no-final-newline": "{\"a\": 1}",
        "crlf": "{\r\n  \"a\": 1\r\n}\r\n",
        "escapes": "{\"a\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}\n",
        "numbers": "{\"a\": [0, -0, 1.5, -2e10, 3E-2, 1e+2]}\n",
        "unicode": "{\"ключ\": \"значение\", \"日本\": \"語\"}\n",
        "empty-object": "{}\n",
        "tabs": "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n",
        "deep": "{\"a\": " + "[" * 40 + "]" * 40 + "}\n",
    },
    "invalid": {
        "comment": "{\n  // no\n  \"a\": 1\n}\n",
        "trailing-comma": "{\"a\": 1,}\n",
        "single-quotes": "{'a': 1}\n",
        "unquoted-key": "{a: 1}\n",
        "hex": "{\"a\": 0x1}\n",
        "leading-zero": "{\"a\": 007}\n",
        "tab-in-string": "{\"a\": \"x\ty\"}\n",
        "nan": "{\"a\": NaN}\n",
        "missing-comma": "{\"a\": 1 \"b\": 2}\n",
        "truncated": "{\"a\": {\"b\": 1}\n",
        "two-documents": "{} {}\n",
    },
    "refused": {
        "duplicate-key": "{\"a\": 1, \"a\": 2}\n",
    },
}


# hermes' config.yaml, judged by PyYAML's safe_load (what hermes reads it with)
YAML = {
    "valid": {
        "block": "# hermes\nmodel:\n  default: Auto-AI  # pinned\n  provider: custom\ntoolsets:\n- web\n- mcp\n",
        "flow": "model: {default: Auto-AI, provider: custom}\ntoolsets: [web, mcp]\n",
        "indented-sequences": "toolsets:\n  - web\n  - mcp\n",
        "four-spaces": "terminal:\n    backend: local\n    cwd: /root\n",
        "quoted": "a: 'single'\nb: \"double \\u00e9\"\nc: plain text\n",
        "block-scalars": "prompt: |\n  line one\n  line two\nfolded: >-\n  folded\n  text\n",
        "multi-line-plain": "note: this is\n  one plain\n  scalar\n",
        "anchors": "base: &b\n  timeout: 30\nother:\n  <<: *b\n  extra: 1\n",
        "anchor-on-mcp-servers": "defaults: &srv\n  enabled: true\nmcp_servers: &servers\n  gh:\n    command: gh\n    <<: *srv\n",
        "alias-of-mcp-servers": "shared: &s\n  gh: {command: gh}\nmcp_servers: *s\n",
        "existing-mcp": "mcp_servers:\n  # the owner's\n  gh:\n    command: gh\n    args: [--stdio]\n",
        "empty-mcp": "mcp_servers: {}\n",
        "null-mcp": "mcp_servers:\n",
        "document-start": "---\nmodel: x\n",
        "document-end": "model: x\n...\n",
        "directive": "%YAML 1.1\n---\nmodel: x\n",
        "comments-everywhere": "# top\n\nmodel: x # inline\n# between\nother: y\n# end\n",
        "no-final-newline": "model: x",
        "crlf": "model: x\r\nother:\r\n  a: 1\r\n",
        "yaml11-booleans": "approvals:\n  mode: off\nflag: yes\n",
        "numbers": "a: 0755\nb: 0x1F\nc: 1_000\nd: 1e3\ne: .inf\nf: -.5\n",
        "timestamps": "since: 2026-01-01\nat: 2026-01-01T10:00:00Z\n",
        "unicode": "имя: значение\n日本: 語\nemoji: \"\\U0001F600\"\n",
        "tags": "a: !!str 123\nb: !!int '7'\nc: !!float 1\n",
        "binary": "icon: !!binary aGVsbG8=\nmodel: x\n",
        "empty-key": "\"\": empty key\nmodel: x\n",
        "null-key": "~: null key\nmodel: x\n",
        "integer-keys": "1: one\n2: two\n",
        "deep": "a:\n" + "".join("  " * i + "  k%d:\n" % i for i in range(30)) + "  " * 31 + "v: 1\n",
        "tab-in-value": "a: \"tab\\there\"\n",
        "long-line": "a: " + "x" * 300 + "\n",
        "comment-only": "# nothing yet\n",
        "empty": "",
    },
    "invalid": {
        "bad-indent": "a:\n  b: 1\n c: 2\n",
        "tab-indent": "a:\n\tb: 1\n",
        "unclosed-flow": "a: [1, 2\nb: 3\n",
        "unclosed-quote": "a: 'abc\nb: 1\n",
        "colon-in-plain": "a: b: c\n",
        "unknown-alias": "a: *nope\n",
        "bad-escape": "a: \"\\q\"\n",
        "two-documents": "a: 1\n---\nb: 2\n",
        "unknown-tag": "a: !!nope x\n",
        # PyYAML does not read a tab inside a plain scalar
        "tab-in-plain": "a: x\ty\n",
        # PyYAML cannot hash a sequence or mapping key: hermes cannot read these
        "sequence-key": "? [a, b]\n: pair\nmodel: x\n",
        "mapping-key": "{a: 1}: mapped\nmodel: x\n",
    },
    "refused": {
        "duplicate-key": "a: 1\nb: 2\na: 3\n",
        "top-level-list": "- a\n- b\n",
        "set-root": "--- !!set\n? a\n? b\n",
        # adding to an anchored node an alias repeats would change the copy too
        "aliased-anchor-on-mcp-servers": "mcp_servers: &s\n  gh:\n    command: gh\nmirror: *s\n",
    },
}

# hermes' .env, judged by python-dotenv (what hermes reads it with); `channel add telegram`
# writes TELEGRAM_BOT_TOKEN
DOTENV = {
    "valid": {
        "plain": "# hermes\nAPI_SERVER_ENABLED=true\nexport OWNER=me\n",
        "quoted": "A='single $x'\nB=\"double \\\" quote\"\nC=\"\"\n",
        "multi-line-double": "KEY=\"-----BEGIN KEY-----\nabc\ndef\n-----END KEY-----\"\nNEXT=1\n",
        "multi-line-single": "NOTE='line one\nline two'\nNEXT=1\n",
        "comments": "A=1 # note\n  # indented\nB=2\n",
        "spaces": "  A = spaced\nB=  lead\n",
        "crlf": "A=1\r\nB=2\r\n",
        "no-final-newline": "A=1",
        "empty-value": "A=\nB=2\n",
        "existing-token": "TELEGRAM_BOT_TOKEN=old\nOTHER=1\n",
        "hash-in-value": "A=a#b\nB=#c\n",
        "blank-lines": "\n\nA=1\n\n",
        "empty": "",
    },
    "invalid": {
        "no-equals": "A=1\nJUSTAWORD\n",
        "bad-key": "BAD-KEY=1\n",
        "unterminated-double": "A=1\nB=\"never closed\nC=2\n",
        "unterminated-single": "A='x\n",
        "text-after-quote": "A=\"x\"y\n",
        "leading-digit": "1A=1\n",
    },
}

SUITES = {
    "json5": (JSON5, "json5"),
    "jsonc": (JSONC, "json"),
    "json": (JSON, "json"),
    "yaml": (YAML, "yaml"),
    "dotenv": (DOTENV, "env"),
}


def main():
    for suite, (cases, ext) in SUITES.items():
        folder = os.path.join(HERE, suite)
        shutil.rmtree(folder, ignore_errors=True)
        for kind, files in cases.items():
            os.makedirs(os.path.join(folder, kind))
            for name, text in files.items():
                with open(os.path.join(folder, kind, f"{name}.{ext}"), "w", encoding="utf-8", newline="") as f:
                    f.write(text)


if __name__ == "__main__":
    main()
