#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The fast fleet test (tests/it/fleet_local.rs runs it): the osctl.device collection driven by a
real ansible-playbook over `connection: local`, against several device trees copied from
examples/device, with tests/support/fake-systemctl standing in for systemd. No containers;
seconds, for the developers' loop. The real-SSH fleet is the same playbooks over sshd.

What it shows, host by host:
  1. `--check --diff -vvv` predicts, then the same playbook for real (`--diff -vvv`), then once
     more: the second real run reports changed=0 on every host;
  2. check mode's predictions equal the real run: per task, `changed`; per host, the set of
     files the previews named equals the set of files that really changed on disk (found by
     hashing the tree before and after, not from osctl's word);
  3. a rolling switch (serial 1, max_fail_percentage 0) where host 2's new runtime crash-loops:
     host 2 fails with osctl's message, stays on its old runtime with every file as it was,
     and host 3 is not touched at all;
  4. the secrets given as module options appear in no output, -vvv included.
It ends with one `FLEET: ...` line of figures and exits 1 on any failed check.

Usage: fleet_local.py --osctl BIN --venv DIR --repo DIR --work DIR [--hosts N]
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys

# Secrets the playbook passes as module options; none may appear in any output.
SECRETS = {
    "fleet_github_token": "ghp_FleetTok3nNeverPrinted9876",
    "fleet_search_key": "sk-search-Fl33tKeyNeverPrinted5432",
    "fleet_telegram_token": "7777777:AAFleetTelegramNeverPrinted11",
}
# A backup's name holds the time it was taken; a preview cannot name it as the real run will.
BACKUP = re.compile(r"\.bak-[0-9]+$")
# What is compared on each device: its configuration, units and osctl's files. Not osctl's own
# bookkeeping (the lock, journals and markers under /var/lib/osctl, which no plan lists), nor
# Ansible's remote temporary folder (/root/.ansible).
TREES = ("root", "etc", "usr/local", "opt")
SKIP = ("root/.ansible/",)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED: " + what, file=sys.stderr)


def tree(root):
    """Every file and link under root's TREES: relative path -> (mode, sha256)."""
    out = {}
    for top in TREES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            for name in filenames:
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                # Enabled units' links are systemctl's doing (the plan's service steps).
                if rel.startswith(SKIP) or ".wants/" in rel:
                    continue
                st = os.lstat(path)
                if stat.S_ISLNK(st.st_mode):
                    digest = "link:" + os.readlink(path)
                else:
                    with open(path, "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                out[rel] = (stat.S_IMODE(st.st_mode), digest)
    return out


def changed_paths(before, after):
    return {BACKUP.sub(".bak-*", "/" + p) for p in set(before) | set(after)
            if before.get(p) != after.get(p)}


class Fleet(object):
    mode = "local"

    def __init__(self, args):
        self.args = args
        args.repo = os.path.abspath(args.repo)
        self.work = os.path.abspath(args.work)
        self.hosts = ["lamp%d" % (i + 1) for i in range(args.hosts)]
        self.venv = args.venv
        self.logs = []

    def root(self, host):
        return os.path.join(self.work, host, "device")

    def systemd(self, host):
        return os.path.join(self.work, host, "systemd")

    def setup(self):
        if os.path.exists(self.work):
            shutil.rmtree(self.work)
        fake = os.path.join(self.args.repo, "tests/support/fake-systemctl")
        lines = ["[lamps]"]
        for host in self.hosts:
            shutil.copytree(os.path.join(self.args.repo, "examples/device"), self.root(host),
                            symlinks=True)
            os.makedirs(self.systemd(host))
            # As on the sample device: hermes runs, openclaw is installed and stopped.
            for key, value in (("active", "active"), ("enabled", "enabled")):
                with open(os.path.join(self.systemd(host), "hermes-gateway.service." + key), "w") as f:
                    f.write(value + "\n")
            env = dict(OSCTL_SYSTEMCTL=fake, FAKE_SYSTEMCTL_DIR=self.systemd(host),
                       FAKE_SYSTEMCTL_ROOT=self.root(host))
            lines.append("%s osctl_root=%s osctl_env='%s'" % (host, self.root(host), json.dumps(env)))
        lines += ["", "[lamps:vars]", "ansible_connection=local",
                  "ansible_python_interpreter=%s" % os.path.join(self.venv, "bin/python"),
                  "osctl_path=%s" % os.path.abspath(self.args.osctl), "fleet_settle=0"]
        self.inventory = os.path.join(self.work, "inventory.ini")
        with open(self.inventory, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.extra = os.path.join(self.work, "secrets.json")
        with open(self.extra, "w") as f:
            json.dump(SECRETS, f)

    def rig(self, host):
        """host's hermes crash-loops from its next start on."""
        with open(os.path.join(self.systemd(host), "hermes-gateway.service.on-start"), "w") as f:
            f.write("crashloop\n")

    def services(self, host):
        """What systemd did on host so far: fake-systemctl's log of calls."""
        path = os.path.join(self.systemd(host), "calls")
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            return f.read()

    def running(self, host):
        """The runtime units active on host as systemd says, or None where there is no systemd."""
        return None

    def teardown(self):
        pass

    def playbook(self, name, *flags):
        """Runs one playbook; returns (exit code, the recorded results)."""
        here = os.path.dirname(os.path.abspath(__file__))
        record = os.path.join(self.work, "record-%d.json" % len(self.logs))
        env = dict(os.environ)
        env.update(
            ANSIBLE_COLLECTIONS_PATH=os.path.join(self.args.repo, "ansible"),
            ANSIBLE_CALLBACK_PLUGINS=os.path.join(here, "callback_plugins"),
            ANSIBLE_CALLBACKS_ENABLED="fleet_record",
            ANSIBLE_HOST_KEY_CHECKING="False",
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_PIPELINING="True",
            ANSIBLE_LOCAL_TEMP=os.path.join(self.work, "ansible-tmp"),
            ANSIBLE_HOME=os.path.join(self.work, "ansible-home"),
            FLEET_RECORD=record,
        )
        cmd = [os.path.join(self.venv, "bin/ansible-playbook"), "-i", self.inventory,
               "-e", "@" + self.extra, "-vvv"] + list(flags) + [
                   os.path.join(here, "playbooks", name)]
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True)
        log = os.path.join(self.work, "run-%d-%s.log" % (len(self.logs), name))
        with open(log, "w") as f:
            f.write(proc.stdout)
        self.logs.append(proc.stdout)
        rows = []
        if os.path.exists(record):
            with open(record) as f:
                rows = json.load(f)
        print("ansible-playbook %s %s: exit %d, %d results (log %s)"
              % (name, " ".join(flags), proc.returncode, len(rows), log))
        return proc.returncode, rows


def osctl_rows(rows):
    """The results of osctl.device tasks that can change the device (facts only reads)."""
    return [r for r in rows if r["action"].startswith("osctl.device.")
            and r["action"] != "osctl.device.facts"]


def predicted_files(rows, host):
    out = set()
    for r in osctl_rows(rows):
        if r["host"] == host and r["changed"]:
            out |= {f["path"] for f in (r["files"] or [])}
    return out


def arguments():
    p = argparse.ArgumentParser()
    p.add_argument("--osctl", required=True)
    p.add_argument("--venv", required=True)
    p.add_argument("--repo", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--hosts", type=int, default=3)
    return p


def main(fleet):
    try:
        fleet.setup()
        return run(fleet)
    finally:
        fleet.teardown()


def run(fleet):
    hosts = fleet.hosts

    # 1. Check mode and diff first: nothing may change.
    before = {h: tree(fleet.root(h)) for h in hosts}
    rc, check_rows = fleet.playbook("configure.yml", "--check", "--diff")
    check(rc == 0, "the --check --diff run exits 0 (got %d)" % rc)
    for h in hosts:
        check(tree(fleet.root(h)) == before[h], "%s: check mode changed no file" % h)
    check(any(r["changed"] for r in check_rows), "check mode predicts changes")
    check("--- a/root/.hermes/config.yaml" in fleet.logs[-1], "--diff shows osctl's per-file diff")

    # 2. The real run: the same changes, task by task and file by file.
    rc, real_rows = fleet.playbook("configure.yml", "--diff")
    check(rc == 0, "the real run exits 0 (got %d)" % rc)
    after = {h: tree(fleet.root(h)) for h in hosts}
    tasks = mismatches = predicted = real = 0
    real_by_task = {(r["host"], r["task"]): r for r in osctl_rows(real_rows)}
    for r in osctl_rows(check_rows):
        tasks += 1
        predicted += r["changed"]
        twin = real_by_task.get((r["host"], r["task"]))
        if twin is None or twin["changed"] != r["changed"]:
            mismatches += 1
            print("mismatch %s / %s: check changed=%s, real %s" % (
                r["host"], r["task"], r["changed"], twin and twin["changed"]), file=sys.stderr)
    real = sum(r["changed"] for r in osctl_rows(real_rows))
    check(len(real_by_task) == tasks, "the real run ran the tasks check mode ran")
    for h in hosts:
        want = predicted_files(check_rows, h)
        got = changed_paths(before[h], after[h])
        if want != got:
            mismatches += 1
            print("%s: files predicted but unchanged: %s; changed but not predicted: %s" % (
                h, sorted(want - got), sorted(got - want)), file=sys.stderr)
        check(bool(got), "%s: the real run changed files" % h)
    check(mismatches == 0, "check mode predicted the real run exactly (%d mismatches)" % mismatches)

    # 3. Once more: nothing left to do anywhere.
    rc, again_rows = fleet.playbook("configure.yml")
    check(rc == 0, "the second real run exits 0 (got %d)" % rc)
    second = sum(r["changed"] for r in osctl_rows(again_rows))
    check(second == 0, "the second real run changes nothing (%d changed)" % second)
    for h in hosts:
        check(tree(fleet.root(h)) == after[h], "%s: the second run left every file as it was" % h)
    facts = [r for r in again_rows if r["action"] == "osctl.device.facts"]
    check(len(facts) == len(hosts) and all(r["status"] == "ok" for r in facts),
          "facts ran on every host")

    # 4. A rolling switch back to hermes, with lamp2's hermes rigged to crash-loop.
    rigged = hosts[1]
    fleet.rig(rigged)
    snap = {h: tree(fleet.root(h)) for h in hosts}
    calls = {h: fleet.services(h) for h in hosts}
    rc, wave = fleet.playbook("rolling-switch.yml")
    check(rc != 0, "the wave fails")
    by_host = {r["host"]: r for r in wave}
    check(by_host.get(hosts[0], {}).get("status") == "ok" and by_host[hosts[0]]["changed"],
          "%s switched" % hosts[0])
    failed = by_host.get(rigged, {})
    check(failed.get("status") == "failed", "%s failed" % rigged)
    check("did not stay active" in (failed.get("msg") or ""),
          "%s fails with osctl's message (got %r)" % (rigged, failed.get("msg")))
    check(failed.get("rc") == 4, "%s: osctl rolled back (exit 4, got %r)" % (rigged, failed.get("rc")))
    moved = changed_paths(snap[rigged], tree(fleet.root(rigged)))
    # The one file a rollback keeps on purpose: the log of the reinstall osctl tried (on a live
    # device, where it runs the installer), for the operator to read. Not configuration.
    kept = moved & {"/root/.hermes/install.log"}
    if kept:
        print("%s: kept after the rollback: %s" % (rigged, ", ".join(sorted(kept))))
    check(not moved - kept, "%s: every file as it was (changed: %s)" % (rigged, sorted(moved - kept)))
    with open(os.path.join(fleet.root(rigged), "root/config/config.json")) as f:
        check(json.load(f).get("agent_runtime") == "openclaw", "%s stays on openclaw" % rigged)
    running = fleet.running(rigged)
    if running is not None:
        check(running == ["openclaw.service"], "%s: openclaw runs, hermes does not (%s)" % (rigged, running))
    untouched = hosts[2:]
    for h in untouched:
        check(h not in by_host, "%s: no task ran" % h)
        check(tree(fleet.root(h)) == snap[h], "%s: not a file changed" % h)
        check(fleet.services(h) == calls[h], "%s: systemd untouched" % h)
    stopped_at = failed.get("status") == "failed" and rigged or "none"

    # 5. No secret given as a module option in any output, -vvv included.
    leaked = 0
    for name, value in SECRETS.items():
        for i, log in enumerate(fleet.logs):
            if value in log:
                leaked += 1
                print("secret %s leaked in run %d" % (name, i), file=sys.stderr)
    check(leaked == 0, "no secret in any output")
    # ...while each did reach the device (the runs really used them).
    with open(os.path.join(fleet.root(hosts[0]), "root/config/config.json")) as f:
        check(SECRETS["fleet_telegram_token"] in f.read(), "the telegram token reached config.json")

    print("FLEET: mode=%s hosts=%d tasks=%d predicted=%d real=%d mismatches=%d "
          "second_run_changed=%d secrets_leaked=%d stopped_at=%s"
          % (fleet.mode, len(hosts), tasks, predicted, real, mismatches, second, leaked, stopped_at))
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(Fleet(arguments().parse_args())))
