#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: skills
short_description: Keep the runtime's skills in step with the skills CDN (osctl skills sync)
description:
  - Runs one pass of C(osctl skills sync) — fetch the skills metadata (verified when bootstrap.json
    has a signing key), install every supported skill whose version changed, prune unsupported
    ones, refresh openclaw's OS hooks.
  - One bad skill does not stop the others, but the task then fails (osctl exit 1).
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  runtime:
    description: The runtime whose skills folder to sync (default, the active runtime).
    type: str
    choices: [openclaw, hermes, picoclaw, codex, claudecode, opencode]
  metadata_url:
    description: The OTA metadata that lists the skills (default, bootstrap.json C(metadata_url)).
    type: str
  notify_cmd:
    description: A shell command run with the update prompt on its standard input when a skill's content changed.
    type: str
  ca_file:
    description: Trust only the certificates in this PEM file (on the device).
    type: path
  timeout:
    description: Seconds one request may take as a whole.
    type: int
    default: 30
attributes:
  check_mode:
    support: full
    description: Runs the same osctl command with C(--dry-run); changed is what the real run would report.
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Sync skills from the staging CDN
  osctl.device.skills:
    metadata_url: https://cdn.example.com/os/ota/metadata.json
"""

RETURN = r"""
  rc:
    description: osctl's exit code.
    returned: always
    type: int
    sample: 0
  mode:
    description: How osctl ran, C(apply) or C(dry-run) (check mode).
    returned: when osctl printed its document
    type: str
    sample: dry-run
  files:
    description: Each file osctl wrote (or in check mode would write), in plan order; a backup's time stamp in its name is shown as C(*).
    returned: when osctl printed its document
    type: list
    elements: dict
    sample: [{"path": "/root/.hermes/config.yaml", "change": "modify"}]
  osctl:
    description: osctl's JSON document, as printed (secrets masked by osctl).
    returned: when osctl printed its document
    type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.osctl.device.plugins.module_utils.osctl import Osctl, common_argument_spec


def main():
    spec = common_argument_spec()
    spec.update(
        runtime=dict(type="str", choices=["openclaw", "hermes", "picoclaw", "codex", "claudecode", "opencode"]),
        metadata_url=dict(type="str"),
        notify_cmd=dict(type="str"),
        ca_file=dict(type="path"),
        timeout=dict(type="int", default=30),
    )
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    args = ["skills", "sync", "--timeout", str(p["timeout"])]
    for opt in ("runtime", "metadata_url", "notify_cmd", "ca_file"):
        if p[opt]:
            args += ["--" + opt.replace("_", "-"), p[opt]]
    Osctl(module).run(args)


if __name__ == "__main__":
    main()
