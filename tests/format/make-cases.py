#!/usr/bin/env python3
"""Writes the conformance cases of tests/format_conformance.rs (run from anywhere).

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

SUITES = {"json5": (JSON5, "json5"), "jsonc": (JSONC, "json"), "json": (JSON, "json")}


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
