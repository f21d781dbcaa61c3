#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: facts
short_description: The device's osctl status (and doctor report) as facts
description:
  - Runs C(osctl status --json) and puts its document under C(ansible_facts.osctl.status)
    (the active runtime and why, each runtime's state, channels, markers).
  - When the device's osctl has a C(doctor) command, its C(--json) report goes under
    C(ansible_facts.osctl.doctor); an osctl without it leaves C(doctor) null.
  - Reads only; never changes the device.
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  doctor:
    description: Also run C(osctl doctor --json) when the binary has it.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
    description: Reads only, in check mode as in a real run.
  diff_mode:
    support: none
    description: Nothing changes, so there is no diff.
"""

EXAMPLES = r"""
- name: Read every lamp's state
  osctl.device.facts:

- name: One line per lamp
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }} {{ ansible_facts.osctl.status.active.runtime }}"
"""

RETURN = r"""
ansible_facts:
  description: The facts.
  returned: always
  type: complex
  contains:
    osctl:
      description: C(status) (osctl status's document), C(doctor) (osctl doctor's document or null), C(version).
      returned: always
      type: dict
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.osctl.device.plugins.module_utils.osctl import (
    Osctl, common_argument_spec, error_message)


def main():
    spec = common_argument_spec()
    spec.update(doctor=dict(type="bool", default=True))
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    osctl = Osctl(module)
    rc, status, err = osctl.run_raw(["status"], read=True)
    if status is None or rc != 0:
        module.fail_json(msg=error_message(status or {}, rc, err), rc=rc)
    facts = dict(status=status, doctor=None)
    vrc, vout, dummy = module.run_command([osctl.path, "-V"])
    facts["version"] = vout.strip().split()[-1] if vrc == 0 and vout.strip() else None
    if module.params["doctor"]:
        # doctor is newer than status: an osctl without it answers its --help with a usage error.
        hrc, dummy, dummy = module.run_command([osctl.path, "doctor", "--help"])
        if hrc == 0:
            drc, doc, err = osctl.run_raw(["doctor"], read=True)
            if doc is None:
                module.fail_json(msg="osctl doctor: " + error_message({}, drc, err), rc=drc)
            facts["doctor"] = doc
    module.exit_json(changed=False, ansible_facts=dict(osctl=facts))


if __name__ == "__main__":
    main()
