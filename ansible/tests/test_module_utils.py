# SPDX-License-Identifier: MIT OR Apache-2.0
"""Unit tests of the collection's module_utils/osctl.py, the mapping from osctl's JSON and exit
codes to Ansible's result, on documents shaped as osctl prints them: schema 1 (today's, with
`switch --json` printing one line per phase) and schema 2 (one document, `changed` and
`exit_code` always there). Needs only Python 3; tests/it/fleet_local.rs runs it."""

import importlib.util
import json
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "..", "ansible_collections", "osctl", "device", "plugins",
                    "module_utils", "osctl.py")
spec = importlib.util.spec_from_file_location("osctl_module_utils", PATH)
mu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mu)

FILE_STEP = {"type": "file", "path": "/root/.hermes/config.yaml", "change": "modify",
             "diff": "--- a/root/.hermes/config.yaml\n+++ b/root/.hermes/config.yaml\n"}
SERVICE_STEP = {"type": "service", "action": "restart-if-active", "unit": "hermes-gateway"}


class ParseDocument(unittest.TestCase):
    def test_one_pretty_document(self):
        doc = {"schema": 2, "command": "mcp add", "ok": True, "changed": True}
        self.assertEqual(mu.parse_document(json.dumps(doc, indent=2)), doc)

    def test_phase_lines_take_the_last_object(self):
        out = "\n".join([
            json.dumps({"schema": 1, "command": "switch", "phase": "starting"}),
            json.dumps({"schema": 1, "command": "switch", "phase": "success", "changed": True}),
            "",
        ])
        self.assertEqual(mu.parse_document(out)["phase"], "success")

    def test_lines_that_are_not_objects_are_skipped(self):
        out = json.dumps({"phase": "plan"}) + "\n[1, 2]\nnot json\n"
        self.assertEqual(mu.parse_document(out), {"phase": "plan"})

    def test_nothing_printed(self):
        self.assertIsNone(mu.parse_document(""))
        self.assertIsNone(mu.parse_document("error: no JSON here\n"))


class Changed(unittest.TestCase):
    def test_check_mode_is_the_previews_pending(self):
        doc = {"mode": "dry-run", "changed": False, "pending": True, "plan": {"steps": []}}
        self.assertTrue(mu.derive_changed(doc, 0, True))
        doc["pending"] = False
        self.assertFalse(mu.derive_changed(doc, 0, True))

    def test_check_mode_without_pending_reads_the_plan(self):
        self.assertTrue(mu.derive_changed({"steps": [FILE_STEP]}, 0, True))
        self.assertFalse(mu.derive_changed({"plan": {"steps": []}}, 0, True))

    def test_real_run_is_the_documents_changed(self):
        self.assertTrue(mu.derive_changed({"changed": True, "plan": {"steps": []}}, 0, False))
        self.assertFalse(mu.derive_changed({"changed": False, "plan": {"steps": [FILE_STEP]}}, 0, False))

    def test_real_run_without_changed_reads_the_plan_and_exit_code(self):
        self.assertTrue(mu.derive_changed({"plan": {"steps": [SERVICE_STEP]}}, 0, False))
        self.assertFalse(mu.derive_changed({"plan": {"steps": [FILE_STEP]}}, 1, False))
        self.assertFalse(mu.derive_changed({"plan": {"steps": [{"type": "commit"}]}}, 0, False))


class PlanReading(unittest.TestCase):
    def test_steps_from_plan_or_top_level(self):
        self.assertEqual(mu.plan_steps({"plan": {"steps": [FILE_STEP]}}), [FILE_STEP])
        self.assertEqual(mu.plan_steps({"steps": [FILE_STEP]}), [FILE_STEP])
        self.assertEqual(mu.plan_steps({"steps": "n/a"}), [])

    def test_files_hide_a_backups_time_only(self):
        steps = [FILE_STEP, SERVICE_STEP,
                 {"type": "file", "path": "/root/w/SOUL.md.bak-1796187014156633497", "change": "create"},
                 {"type": "file", "path": "/root/w/v1.bak-notes", "change": "delete"}]
        self.assertEqual(mu.file_changes({"plan": {"steps": steps}}), [
            {"path": "/root/.hermes/config.yaml", "change": "modify"},
            {"path": "/root/w/SOUL.md.bak-*", "change": "create"},
            {"path": "/root/w/v1.bak-notes", "change": "delete"},
        ])

    def test_diff_is_osctls_own_per_file(self):
        steps = [FILE_STEP, SERVICE_STEP, {"type": "file", "path": "/root/x", "change": "delete"}]
        self.assertEqual(mu.diff_entries({"plan": {"steps": steps}}), [
            {"prepared": FILE_STEP["diff"]}, {"prepared": "delete /root/x\n"}])


class ErrorMessage(unittest.TestCase):
    def test_message_place_causes_hint_and_exit(self):
        doc = {"ok": False, "error": {
            "code": "parse", "message": "bad JSON5", "path": "/root/.openclaw/openclaw.json",
            "line": 7, "causes": ["expected `,`"], "hint": "fix the file, then run again"}}
        self.assertEqual(mu.error_message(doc, 1, ""),
                         "/root/.openclaw/openclaw.json:7: bad JSON5 (caused by: expected `,`) "
                         "hint: fix the file, then run again "
                         "(osctl exit 1: refused; nothing was written)")

    def test_busy_names_the_holder_from_osctls_message(self):
        doc = {"ok": False, "error": {"message": "the device is busy: osctl switch (pid 42) holds the lock"}}
        msg = mu.error_message(doc, 6, "")
        self.assertIn("pid 42", msg)
        self.assertIn("exit 6: busy", msg)

    def test_without_a_document_stderr_is_the_message(self):
        self.assertEqual(mu.error_message({}, 2, "error: unexpected argument\n"),
                         "error: unexpected argument (osctl exit 2: usage error)")


if __name__ == "__main__":
    unittest.main()
