#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) osctl contributors
# SPDX-License-Identifier: MIT OR Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: runtime
short_description: Make a runtime the device's active one (osctl switch)
description:
  - Runs C(osctl switch NAME) on the device — installs the runtime when needed, starts its unit and
    requires it to stay up for O(settle) seconds, stops the old one, records it in config.json
    (the commit point) and reconciles persona, LLM config, channels and MCP servers.
  - Any failure before the commit point rolls the device back (osctl exit 4); the task then fails
    with osctl's message and the device is left on its old runtime with its config unchanged.
  - When NAME is already active, nothing is done and the task is C(ok).
version_added: "0.1.0"
author: osctl contributors (!UNKNOWN)
extends_documentation_fragment: osctl.device.osctl
options:
  name:
    description: The runtime (openclaw, hermes, picoclaw, codex, claudecode, opencode; C(pi) is openclaw).
    type: str
    required: true
  settle:
    description: Seconds the new unit must stay active, with no restart, before the old one is stopped.
    type: float
    default: 5
  wait_ready:
    description: Once the unit is up, run the runtime's ready hook until it passes; not ready rolls back.
    type: bool
    default: false
  ready_tries:
    description: How many times the ready hook runs before the switch gives up (with O(wait_ready)).
    type: int
    default: 12
  ready_interval:
    description: Seconds between two runs of the ready hook.
    type: float
    default: 5
  reconcile:
    description: Run the reconcilers after the commit point (false is osctl C(--no-reconcile)).
    type: bool
    default: true
  installer:
    description: When the runtime needs installing, run this installer (a file on the device) instead of the embedded one.
    type: path
  from_cdn:
    description: When the runtime needs installing, download its installer from the runtime CDN (O(runtimes_base_url)).
    type: bool
    default: false
  installer_url:
    description: When the runtime needs installing, download its installer from this HTTPS URL.
    type: str
  runtimes_base_url:
    description: The runtime CDN that O(from_cdn) downloads from (default, osctl's own).
    type: str
  installer_sha256:
    description: Run a named installer only if its SHA-256 is this (hexadecimal).
    type: str
  installer_env:
    description: Variables passed to the installer's environment, for example C(PICO_VERSION=v0.3.2).
    type: dict
    default: {}
  install_timeout:
    description: Seconds the installer may run before it is killed.
    type: int
    default: 1800
  ca_file:
    description: Trust only the certificates in this PEM file (on the device) for the installer download.
    type: path
attributes:
  check_mode:
    support: full
    description: Runs C(osctl switch --dry-run); changed is the preview's C(pending).
  diff_mode:
    support: full
    description: Each file osctl writes (or would write) is shown as osctl's unified diff, secrets masked.
"""

EXAMPLES = r"""
- name: Switch the lamp to hermes, requiring it to stay up 10 s and pass its ready hook
  osctl.device.runtime:
    name: hermes
    settle: 10
    wait_ready: true

- name: Switch to picoclaw, installing a pinned version from the runtime CDN
  osctl.device.runtime:
    name: picoclaw
    from_cdn: true
    installer_env:
      PICO_VERSION: v0.3.2
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


def secs(value):
    return ("%f" % value).rstrip("0").rstrip(".") or "0"


def main():
    spec = common_argument_spec()
    spec.update(
        name=dict(type="str", required=True),
        settle=dict(type="float", default=5),
        wait_ready=dict(type="bool", default=False),
        ready_tries=dict(type="int", default=12),
        ready_interval=dict(type="float", default=5),
        reconcile=dict(type="bool", default=True),
        installer=dict(type="path"),
        from_cdn=dict(type="bool", default=False),
        installer_url=dict(type="str"),
        runtimes_base_url=dict(type="str"),
        installer_sha256=dict(type="str"),
        installer_env=dict(type="dict", default={}),
        install_timeout=dict(type="int", default=1800),
        ca_file=dict(type="path"),
    )
    module = AnsibleModule(
        argument_spec=spec,
        supports_check_mode=True,
        mutually_exclusive=[("installer", "from_cdn", "installer_url")],
    )
    p = module.params
    args = ["switch", p["name"], "--settle", secs(p["settle"]),
            "--ready-tries", str(p["ready_tries"]), "--ready-interval", secs(p["ready_interval"]),
            "--install-timeout", str(p["install_timeout"])]
    if p["wait_ready"]:
        args.append("--wait-ready")
    if not p["reconcile"]:
        args.append("--no-reconcile")
    if p["installer"]:
        args += ["--installer", p["installer"]]
    if p["from_cdn"]:
        args.append("--from-cdn")
    for opt in ("installer_url", "runtimes_base_url", "installer_sha256", "ca_file"):
        if p[opt]:
            args += ["--" + opt.replace("_", "-"), p[opt]]
    for key in sorted(p["installer_env"]):
        args += ["--installer-env", "%s=%s" % (key, p["installer_env"][key])]
    Osctl(module).run(args)


if __name__ == "__main__":
    main()
