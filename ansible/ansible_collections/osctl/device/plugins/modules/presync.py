#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: presync
short_description: Heal a runtime's native configuration from config.json (osctl presync)
description:
  - Runs C(osctl presync) — LLM wiring per C(llm_config_mode), gateway and local tokens, channel
    credentials, the OS blocks of the runtime's prompt files, one-time steps. Keys osctl does not
    own are kept; a second run changes nothing.
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  runtime:
    description: The runtime to presync (default, the active runtime).
    type: str
    choices: [openclaw, hermes, picoclaw, codex, claudecode, opencode]
attributes:
  check_mode:
    support: full
    description: Runs the same osctl command with C(--dry-run); changed is what the real run would report.
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Heal the active runtime's config
  osctl.device.presync:
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
    spec.update(runtime=dict(type="str", choices=["openclaw", "hermes", "picoclaw", "codex", "claudecode", "opencode"]))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    args = ["presync"]
    if module.params["runtime"]:
        args.append(module.params["runtime"])
    Osctl(module).run(args)


if __name__ == "__main__":
    main()
