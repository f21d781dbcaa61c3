# SPDX-License-Identifier: MIT OR Apache-2.0
"""A callback for the fleet tests: every task result (host, task, status, changed, the files
osctl's plan named, msg) as one JSON list, written to $FLEET_RECORD when the playbook ends. The
tests compare a check-mode run's list with the real run's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = r"""
name: fleet_record
type: aggregate
short_description: Records each task result to $FLEET_RECORD (osctl fleet tests)
description: Records each task result to the JSON file named by $FLEET_RECORD.
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "fleet_record"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self.rows = []

    def _record(self, result, status):
        r = result._result
        self.rows.append(dict(
            host=result._host.get_name(),
            task=result._task.get_name(),
            action=result._task.action,
            status=status,
            changed=bool(r.get("changed")),
            files=r.get("files"),
            rc=r.get("rc"),
            msg=r.get("msg"),
        ))

    def v2_runner_on_ok(self, result):
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "failed")

    def v2_runner_on_skipped(self, result):
        self._record(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._record(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get("FLEET_RECORD")
        if path:
            with open(path, "w") as f:
                json.dump(self.rows, f, indent=1)
