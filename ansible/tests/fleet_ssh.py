#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The real fleet (tests/it/fleet_ssh.rs runs it): the checks of fleet_local.py, over real SSH to
devices that are systemd containers. Each device is a `systemd-nspawn --boot` container from
the lab's ssh rootfs (tests/lab/osctl-systemd-lab.sh with OSCTL_LAB_VARIANT=ssh: openssh-server
and python3 added, the host's network shared), with its own sshd on its own 127.0.0.1 port, a
key generated for this run, osctl at /usr/local/bin/osctl and the sample device tree
(examples/device) under /. Its runtimes are small scripts under real systemd: hermes-gateway
runs at the start, openclaw is installed and stopped. To rig a device, its hermes-gateway
binary is made to exit at once, so the unit crash-loops when the wave switches back to hermes.

Usage: fleet_ssh.py --osctl BIN --venv DIR --repo DIR --work DIR --lab SCRIPT [--hosts N]
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_local  # noqa: E402

STAYS_UP = "#!/bin/sh\nexec sleep infinity\n"
CRASHES = "#!/bin/sh\necho 'hermes-gateway: rigged to crash' >&2\nexit 1\n"
# Restart=always makes a dying gateway a crash loop, as a real agent's unit would be.
UNIT = ("[Unit]\nDescription=osctl fleet test runtime %%N\n[Service]\nExecStart=%s\n"
        "Restart=always\nRestartSec=200ms\n[Install]\nWantedBy=multi-user.target\n")
# The stand-in for a reinstall (see rolling-switch.yml): it changes nothing.
INSTALLER = "#!/bin/sh\necho 'fleet test: nothing to reinstall'\nexit 0\n"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class SshFleet(fleet_local.Fleet):
    mode = "ssh"

    def __init__(self, args):
        super(SshFleet, self).__init__(args)
        self.lab = args.lab
        self.names = {}
        self.leaders = {}

    def labctl(self, *argv, **kw):
        env = dict(os.environ, OSCTL_LAB_VARIANT="ssh")
        return subprocess.run([self.lab] + list(argv), env=env, universal_newlines=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)

    def root(self, host):
        # The container's filesystem as the host sees it.
        return "/proc/%s/root" % self.leaders[host]

    def sh(self, host, *argv):
        out = self.labctl("exec", self.names[host], *argv)
        if out.returncode != 0:
            raise RuntimeError("%s: %s: %s%s" % (host, " ".join(argv), out.stdout, out.stderr))
        return out.stdout

    def write(self, host, path, text, mode):
        full = self.root(host) + path
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        os.chmod(full, mode)

    def setup(self):
        if os.path.exists(self.work):
            shutil.rmtree(self.work)
        os.makedirs(self.work)
        key = os.path.join(self.work, "id_ed25519")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "osctl-fleet-test",
                        "-f", key], check=True)
        with open(key + ".pub") as f:
            pub = f.read()
        lines = ["[lamps]"]
        for i, host in enumerate(self.hosts):
            # it-<pid>-<n>: the lab's gc takes down what a killed run left behind.
            name = "it-%d-%d" % (os.getpid(), 900 + i)
            self.names[host] = name
            out = self.labctl("up", name)
            if out.returncode != 0:
                raise RuntimeError("%s: lab up failed: %s%s" % (host, out.stdout, out.stderr))
            self.leaders[host] = self.labctl("leader", name).stdout.strip()
            r = self.root(host)
            subprocess.run(["cp", "-a", os.path.join(self.args.repo, "examples/device") + "/.",
                            r + "/"], check=True)
            shutil.copy(os.path.abspath(self.args.osctl), r + "/usr/local/bin/osctl")
            os.chmod(r + "/usr/local/bin/osctl", 0o755)
            self.write(host, "/usr/local/bin/hermes-gateway", STAYS_UP, 0o755)
            self.write(host, "/usr/local/bin/openclaw", STAYS_UP, 0o755)
            self.write(host, "/etc/systemd/system/hermes-gateway.service",
                       UNIT % "/usr/local/bin/hermes-gateway", 0o644)
            self.write(host, "/etc/systemd/system/openclaw.service",
                       UNIT % "/usr/local/bin/openclaw", 0o644)
            self.write(host, "/opt/fleet/reinstall", INSTALLER, 0o755)
            self.sh(host, "systemctl", "daemon-reload")
            self.sh(host, "systemctl", "enable", "--now", "hermes-gateway.service")
            port = free_port()
            self.write(host, "/etc/default/ssh", 'SSHD_OPTS="-p %d"\n' % port, 0o644)
            self.write(host, "/root/.ssh/authorized_keys", pub, 0o600)
            self.sh(host, "systemctl", "start", "ssh.service")
            deadline = time.time() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError("%s: sshd never listened on %d" % (host, port))
                    time.sleep(0.1)
            lines.append("%s ansible_host=127.0.0.1 ansible_port=%d" % (host, port))
            print("%s: container %s, sshd on 127.0.0.1:%d" % (host, name, port))
        lines += ["", "[lamps:vars]", "ansible_user=root",
                  "ansible_ssh_private_key_file=%s" % key,
                  "ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
                  "-o IdentitiesOnly=yes'",
                  "ansible_python_interpreter=/usr/bin/python3",
                  "fleet_settle=2", "fleet_installer=/opt/fleet/reinstall"]
        self.inventory = os.path.join(self.work, "inventory.ini")
        with open(self.inventory, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.extra = os.path.join(self.work, "secrets.json")
        with open(self.extra, "w") as f:
            json.dump(fleet_local.SECRETS, f)

    def rig(self, host):
        self.write(host, "/usr/local/bin/hermes-gateway", CRASHES, 0o755)

    def services(self, host):
        return self.sh(host, "systemctl", "show", "-p", "Id,ActiveState,UnitFileState,InvocationID",
                       "openclaw.service", "hermes-gateway.service")

    def running(self, host):
        out = self.labctl("exec", self.names[host], "systemctl", "is-active",
                          "openclaw.service", "hermes-gateway.service").stdout.split()
        return [u for u, st in zip(["openclaw.service", "hermes-gateway.service"], out)
                if st == "active"]

    def teardown(self):
        for host, name in self.names.items():
            self.labctl("down", name)


if __name__ == "__main__":
    p = fleet_local.arguments()
    p.add_argument("--lab", required=True)
    sys.exit(fleet_local.main(SshFleet(p.parse_args())))
