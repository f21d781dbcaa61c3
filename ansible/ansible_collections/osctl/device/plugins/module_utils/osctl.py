# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Runs the device's osctl for the osctl.device modules and turns its one JSON document into
Ansible's result: ``changed``, ``failed``, ``msg`` and ``diff``.

This file owns the mapping from osctl's contract (``--json``, the exit codes of the README) to
Ansible's, so every module reports the same way:

* check mode runs the very command the real run would, with ``--dry-run``: ``changed`` is
  osctl's own ``pending`` (the real run would change something), and the diff is osctl's plan;
* a real run's ``changed`` is the document's ``changed``;
* exit 1 (refused, nothing written), 4 (rolled back), 5 (partly applied: what landed is in the
  message), 6 (busy: the holder is in the message), 2 (usage) and 101 (a bug) fail the task with
  osctl's message and hint.

Secrets never reach osctl's command line: `secret_file` writes them to a file only the module's
user can read, in the module's temporary folder (removed when the module exits), and the
modules pass osctl the file's path (``--token-file``, ``--header-file``, ``--env-file``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import tempfile

# What `osctl --help` lists under "Exit status".
EXIT_MEANING = {
    1: "refused; nothing was written",
    2: "usage error",
    3: "changes are pending",
    4: "failed while applying; everything was rolled back",
    5: "failed and partly applied; the rollback is incomplete",
    6: "busy: another osctl run holds the device lock",
    101: "internal error in osctl (a bug)",
}

# A file's backup, named by the time it was taken (`SOUL.md.bak-<nanoseconds>`): a preview and
# the real run cannot name it alike, so comparisons use the name without the time.
_BACKUP_STAMP = re.compile(r"\.bak-[0-9]+$")


def common_argument_spec():
    """The options every module has (doc fragment osctl.device.osctl)."""
    return dict(
        osctl_path=dict(type="path", default="/usr/local/bin/osctl"),
        root=dict(type="path", default="/"),
        lock_timeout=dict(type="int", default=30),
    )


def parse_document(stdout):
    """The JSON document osctl printed. One document is the contract; an older osctl printed one
    JSON line per phase (``switch --json``), where the last line is the outcome, so when the
    whole text is not one document the last line that is a JSON object is taken."""
    text = (stdout or "").strip()
    if not text:
        return None
    try:
        doc = json.loads(text)
        if isinstance(doc, dict):
            return doc
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict):
            return doc
    return None


def plan_steps(doc):
    """The plan's steps: ``plan.steps`` (schema 2, and most schema-1 commands) or ``steps``
    (schema-1 ``switch``)."""
    plan = doc.get("plan")
    if isinstance(plan, dict) and isinstance(plan.get("steps"), list):
        return plan["steps"]
    steps = doc.get("steps")
    if isinstance(steps, list):
        return steps
    return []


def file_changes(doc):
    """Each file step as ``{"path", "change"}``, in plan order; a backup's time stamp is
    replaced by ``*`` (see _BACKUP_STAMP)."""
    out = []
    for step in plan_steps(doc):
        if isinstance(step, dict) and step.get("type") == "file" and step.get("path"):
            out.append(dict(path=_BACKUP_STAMP.sub(".bak-*", step["path"]),
                            change=step.get("change") or "modify"))
    return out


def diff_entries(doc):
    """Ansible's diff for the plan: one ``{"prepared": ...}`` per file step, osctl's own unified
    diff (secrets already masked by osctl), or a one-line note for a step without one."""
    out = []
    for step in plan_steps(doc):
        if not isinstance(step, dict) or step.get("type") != "file":
            continue
        text = step.get("diff")
        if not text:
            text = "%s %s\n" % (step.get("change") or "modify", step.get("path"))
        out.append(dict(prepared=text))
    return out


def _has_changes(doc):
    for step in plan_steps(doc):
        if isinstance(step, dict) and step.get("type") in ("file", "service", "command"):
            return True
    return False


def derive_changed(doc, rc, check_mode):
    """Whether the run changed (or, previewed, would change) the device. The document's own
    field wins; an osctl without it is read from the plan."""
    if check_mode:
        if "pending" in doc:
            return bool(doc["pending"])
        return _has_changes(doc)
    if "changed" in doc:
        return bool(doc["changed"])
    return rc == 0 and _has_changes(doc)


def error_message(doc, rc, stderr):
    """osctl's message and hint, or failing that its stderr, and what the exit code means."""
    err = doc.get("error") if isinstance(doc, dict) else None
    parts = []
    if isinstance(err, dict):
        where = err.get("path")
        if where and err.get("line"):
            where = "%s:%s" % (where, err["line"])
        msg = err.get("message") or ""
        if where and where not in msg:
            msg = "%s: %s" % (where, msg)
        parts.append(msg)
        causes = err.get("causes") or []
        if causes:
            parts[-1] += " (caused by: %s)" % "; ".join(str(c) for c in causes)
        if err.get("hint"):
            parts.append("hint: " + err["hint"])
    elif stderr and stderr.strip():
        parts.append(stderr.strip())
    meaning = EXIT_MEANING.get(rc)
    if meaning:
        parts.append("(osctl exit %d: %s)" % (rc, meaning))
    elif rc:
        parts.append("(osctl exit %d)" % rc)
    return " ".join(p for p in parts if p)


class Osctl(object):
    """One module's osctl: the binary, the device root, check and diff mode."""

    def __init__(self, module):
        self.module = module
        self.path = module.params["osctl_path"]
        self.root = module.params["root"]
        self.lock_timeout = module.params["lock_timeout"]

    def secret_file(self, lines):
        """A file (mode 0600, in the module's temporary folder) holding `lines`, one a line;
        its path goes on osctl's command line instead of the secret."""
        fd, path = tempfile.mkstemp(prefix="osctl-", dir=self.module.tmpdir)
        with os.fdopen(fd, "w") as f:
            for line in lines:
                f.write("%s\n" % line)
        return path

    def argv(self, args, preview, read=False):
        """osctl's command line. A read command (status, doctor) takes no lock and previews
        nothing, and osctl refuses a global option that does not apply to a command (exit 2),
        so it gets neither --lock-timeout nor --dry-run."""
        base = [self.path, "--root", self.root, "--json", "--color", "never"]
        if not read:
            base += ["--lock-timeout", str(self.lock_timeout)]
            if preview:
                base.append("--dry-run")
        return base + list(args)

    def run_raw(self, args, preview=False, read=False):
        """Runs osctl; returns (rc, document or None, stderr)."""
        if not os.path.exists(self.path):
            self.module.fail_json(msg="osctl not found at %s (option osctl_path)" % self.path)
        rc, out, err = self.module.run_command(
            self.argv(args, preview, read), environ_update=dict(NO_COLOR="1", LC_ALL="C.UTF-8"))
        return rc, parse_document(out), err

    def run(self, args, extra=None):
        """Runs `args` as the task asks (previewed in check mode) and exits the module with the
        result: never returns."""
        check = self.module.check_mode
        rc, doc, err = self.run_raw(args, preview=check)
        self.finish(rc, doc, err, extra)

    def finish(self, rc, doc, err, extra=None):
        check = self.module.check_mode
        result = dict(rc=rc, changed=False)
        if extra:
            result.update(extra)
        if doc is None:
            result["msg"] = "osctl printed no JSON document: %s" % error_message({}, rc, err)
            result["stderr"] = err
            self.module.fail_json(**result)
        result["osctl"] = doc
        result["files"] = file_changes(doc)
        result["mode"] = doc.get("mode") or ("dry-run" if check else "apply")
        warnings = doc.get("warnings") or []
        for w in warnings:
            self.module.warn(w if isinstance(w, str) else json.dumps(w))
        failed = rc != 0 or doc.get("ok") is False
        if failed:
            # A failed run wrote nothing (1, 4) or part of its plan (5); `changed` says which.
            result["changed"] = rc == 5
            if rc == 5 and isinstance(doc.get("applied"), dict):
                result["landed"] = doc["applied"]
            result["msg"] = error_message(doc, rc, err)
            self.module.fail_json(**result)
        result["changed"] = derive_changed(doc, rc, check)
        if self.module._diff and result["changed"]:
            result["diff"] = diff_entries(doc)
        self.module.exit_json(**result)
