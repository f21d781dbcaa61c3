//! The switches whose new runtime needs its installer: a failing verify hook runs it, a failing
//! one rolls back and the next try succeeds, Ctrl-C during it stops its process group, the
//! embedded picoclaw installer with the network stubbed, and a downloaded installer that runs
//! only over HTTPS with its checksum. The lab device and helpers are the parent's.

use super::*;

#[test]
fn a_failing_verify_hook_runs_the_installer() {
    let Some(d) = Device::boot("switch-verify") else {
        return;
    };
    // The unit is there, but the hermes CLI is not: osctl's verify hook fails.
    d.lab.write(
        "/etc/systemd/system/hermes-gateway.service",
        unit("/usr/local/bin/hermes gateway", ""),
        0o644,
    );
    d.ok(&["systemctl", "daemon-reload"]);
    d.lab.write("/opt/stage/hermes", STAYS_UP, 0o755);
    // Installers from upstream call the presync hook; during a switch, which holds the device
    // lock and runs presync itself, the hook must step aside instead of waiting for that lock.
    d.installer(
        "/root/install.sh",
        "/usr/local/bin/runtime-hermes-presync\ninstall -m 0755 /opt/stage/hermes /usr/local/bin/hermes",
    );
    let out = d.osctl(&[
        "switch",
        "hermes",
        "--settle",
        "1",
        "--installer",
        "/root/install.sh",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "hermes needs installing (verify: /usr/local/lib/os-runtimes/hermes/verify: exit status"
        ),
        "{stderr}"
    );
    assert_eq!(d.runs("/root/install.sh"), 1);
    let log = d.lab.read("/root/.hermes/install.log").unwrap();
    assert!(
        log.contains("runtime-hermes-presync: an osctl switch is in progress and runs presync itself; skipped"),
        "{log}"
    );
    assert_eq!(d.state("hermes-gateway.service").0, "active");
    assert_eq!(d.agent_runtime(), "hermes");
}

#[test]
fn a_failing_installer_rolls_back_and_the_next_try_succeeds() {
    let Some(d) = Device::boot("switch-installer") else {
        return;
    };
    // Nothing of hermes is installed. The installer fails on its first run (the network is
    // down, say) and works on its second.
    d.lab.write("/opt/stage/hermes", STAYS_UP, 0o755);
    d.lab.write(
        "/opt/stage/hermes-gateway.service",
        unit("/usr/local/bin/hermes gateway", ""),
        0o644,
    );
    d.installer(
        "/root/install.sh",
        "if [ $n = 1 ]; then echo 'cannot reach the release server' >&2; exit 3; fi\n\
         install -m 0755 /opt/stage/hermes /usr/local/bin/hermes\n\
         install -m 0644 /opt/stage/hermes-gateway.service /etc/systemd/system/",
    );
    let out = d.osctl(&[
        "--json",
        "switch",
        "hermes",
        "--settle",
        "1",
        "--installer",
        "/root/install.sh",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let last = json_lines(&out).pop().unwrap();
    assert_eq!(last["error"]["code"], "install_failed");
    assert_eq!(last["rolled_back"], true);
    assert!(
        last["error"]["causes"]
            .to_string()
            .contains("cannot reach the release server"),
        "{last}"
    );
    d.assert_rolled_back();
    assert!(
        d.lab
            .read("/root/.hermes/install.log")
            .unwrap()
            .contains("cannot reach the release server")
    );

    let out = d.osctl(&[
        "switch",
        "hermes",
        "--settle",
        "1",
        "--installer",
        "/root/install.sh",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(d.runs("/root/install.sh"), 2);
    assert_eq!(
        d.state("hermes-gateway.service"),
        ("active".into(), "enabled".into())
    );
    assert_eq!(d.state("openclaw.service").0, "inactive");
    assert_eq!(d.agent_runtime(), "hermes");
    d.assert_clean_state();
}

/// Ctrl-C (here SIGTERM, as `systemctl stop` or a playbook's timeout sends) while the installer
/// runs: osctl stops the installer's whole process group, rolls the switch back and exits 130.
#[test]
fn a_switch_interrupted_during_its_installer_stops_it_and_rolls_back() {
    let Some(d) = Device::boot("switch-interrupted") else {
        return;
    };
    d.lab.write(
        "/etc/systemd/system/hermes-gateway.service",
        unit("/usr/local/bin/hermes gateway", ""),
        0o644,
    );
    d.ok(&["systemctl", "daemon-reload"]);
    d.installer(
        "/root/slow-install.sh",
        "sleep 60 &\necho $! > /run/installer-child.pid\ntouch /run/installing\nwait",
    );
    std::thread::scope(|s| {
        let switch = s.spawn(|| {
            d.osctl(&[
                "--json",
                "switch",
                "hermes",
                "--installer",
                "/root/slow-install.sh",
            ])
        });
        d.wait_for("/run/installing", "the switch never started installing");
        d.ok(&[
            "sh",
            "-c",
            "for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = osctl ] && kill -TERM ${p#/proc/}; done; true",
        ]);
        let started = Instant::now();
        let out = switch.join().unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "osctl stopped promptly"
        );
        assert_eq!(out.status.code(), Some(130), "{}", text(&out));
        let last = json_lines(&out).pop().unwrap();
        assert_eq!(last["error"]["code"], "interrupted", "{last}");
    });
    let gone = d
        .lab
        .exec(&["sh", "-c", "! kill -0 $(cat /run/installer-child.pid)"]);
    assert!(gone.status.success(), "the installer's child still runs");
    d.assert_rolled_back();
}

#[test]
fn the_embedded_picoclaw_installer_unit_and_ready_hook_work_with_the_network_stubbed() {
    let Some(d) = Device::boot("switch-embedded") else {
        return;
    };
    // curl "downloads" a stand-in picoclaw binary; apt-get does nothing. Both log their calls.
    let fake_picoclaw = "#!/bin/sh\ncase $1 in\n  onboard) mkdir -p /root/.picoclaw && echo '{}' > /root/.picoclaw/config.json ;;\n  gateway) exec sleep infinity ;;\nesac\n";
    d.lab.write("/opt/stage/picoclaw", fake_picoclaw, 0o755);
    d.lab.write(
        "/usr/local/bin/curl",
        "#!/bin/sh\necho \"curl $*\" >> /root/net.log\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\ncp /opt/stage/picoclaw \"$out\"\n",
        0o755,
    );
    d.lab.write(
        "/usr/local/sbin/apt-get",
        "#!/bin/sh\necho \"apt-get $*\" >> /root/net.log\n",
        0o755,
    );
    // Something that answers picoclaw's ready hook (a WebSocket upgrade on 18790).
    d.lab.write(
        "/etc/systemd/system/pico-ws.socket",
        "[Socket]\nListenStream=127.0.0.1:18790\nAccept=yes\n[Install]\nWantedBy=sockets.target\n",
        0o644,
    );
    d.lab.write(
        "/etc/systemd/system/pico-ws@.service",
        "[Service]\nExecStart=/bin/sh -c 'printf \"HTTP/1.1 101 Switching Protocols\\r\\n\\r\\n\"'\nStandardInput=socket\n",
        0o644,
    );
    d.ok(&["systemctl", "daemon-reload"]);
    d.ok(&["systemctl", "start", "pico-ws.socket"]);

    let out = d.osctl(&[
        "switch",
        "picoclaw",
        "--settle",
        "1",
        "--wait-ready",
        "--installer-env",
        "PICO_VERSION=v9.9.9-test",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let net = d.lab.read("/root/net.log").unwrap();
    let arch = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "amd64"
    };
    assert!(
        net.contains(&format!("https://github.com/autonomous-ai/picoclaw/releases/download/v9.9.9-test/picoclaw-linux-{arch}")),
        "{net}"
    );
    assert!(net.contains("--proto =https"), "{net}");
    assert_eq!(
        d.state("picoclaw.service"),
        ("active".into(), "enabled".into())
    );
    assert_eq!(
        d.lab.read("/etc/systemd/system/picoclaw.service").unwrap(),
        include_str!("../../../embedded/picoclaw/picoclaw.service")
    );
    assert!(
        d.exists("/root/.picoclaw/config.json"),
        "the installer ran picoclaw onboard"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("picoclaw is ready"),
        "{}",
        text(&out)
    );
    assert_eq!(d.state("openclaw.service").0, "inactive");
    assert_eq!(d.agent_runtime(), "picoclaw");
    assert!(
        d.lab
            .read("/root/.picoclaw/install.log")
            .unwrap()
            .contains("picoclaw v9.9.9-test installed")
    );
}

/// A CA and a server certificate for 127.0.0.1, made with the host's `openssl`.
fn tls_files(dir: &std::path::Path) -> Option<()> {
    let sh = |script: &str| {
        std::process::Command::new("sh")
            .args(["-ec", script])
            .current_dir(dir)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let made = sh(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
           -subj /CN=osctl-test-ca -keyout ca.key -out ca.pem 2>/dev/null
         openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
           -subj /CN=127.0.0.1 -keyout server.key -out server.csr 2>/dev/null
         printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext
         openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
           -extfile san.ext -out server.pem 2>/dev/null",
    );
    made.then_some(())
}

#[test]
fn a_downloaded_installer_runs_only_over_https_and_with_its_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    if tls_files(tmp.path()).is_none() {
        assert!(
            !systemd_lab::lab_required(),
            "openssl is needed on the host to test downloads"
        );
        eprintln!("SKIP: no openssl on this host");
        return;
    }
    let Some(d) = Device::boot("switch-cdn") else {
        return;
    };
    // A CDN inside the container: openssl's s_server serving /srv/cdn over TLS on loopback.
    d.lab
        .copy_in("/usr/bin/openssl", "/usr/local/bin/openssl", 0o755);
    for f in ["ca.pem", "server.pem", "server.key"] {
        d.lab
            .copy_in(tmp.path().join(f), &format!("/root/tls/{f}"), 0o600);
    }
    d.lab.write("/opt/stage/hermes", STAYS_UP, 0o755);
    d.lab.write(
        "/opt/stage/hermes-gateway.service",
        unit("/usr/local/bin/hermes gateway", ""),
        0o644,
    );
    d.installer(
        "/srv/cdn/hermes/install.sh",
        "install -m 0755 /opt/stage/hermes /usr/local/bin/hermes\n\
         install -m 0644 /opt/stage/hermes-gateway.service /etc/systemd/system/",
    );
    let script = d.lab.read("/srv/cdn/hermes/install.sh").unwrap();
    let sum = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(script.as_bytes()))
    };
    d.ok(&[
        "systemd-run",
        "--unit=cdn",
        "--working-directory=/srv/cdn",
        "/usr/local/bin/openssl",
        "s_server",
        "-accept",
        "127.0.0.1:8443",
        "-cert",
        "/root/tls/server.pem",
        "-key",
        "/root/tls/server.key",
        "-WWW",
        "-quiet",
    ]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !d
        .lab
        .exec(&["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8443"])
        .status
        .success()
    {
        assert!(Instant::now() < deadline, "the test CDN never listened");
        std::thread::sleep(Duration::from_millis(100));
    }
    let cdn = |extra: &[&str]| {
        let mut argv = vec![
            "env",
            "RUNTIMES_BASE_URL=https://127.0.0.1:8443",
            "osctl",
            "--json",
            "switch",
            "hermes",
            "--settle",
            "1",
            "--from-cdn",
            "--ca-file",
            "/root/tls/ca.pem",
        ];
        argv.extend_from_slice(extra);
        d.lab.exec(&argv)
    };

    // Plain HTTP is refused before anything happens.
    let out = d.osctl(&[
        "switch",
        "hermes",
        "--installer-url",
        "http://127.0.0.1:8443/hermes/install.sh",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an https:// URL"));

    // The wrong checksum: downloaded, refused, nothing ran, nothing changed.
    let out = cdn(&["--installer-sha256", &"0".repeat(64)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        json_lines(&out).pop().unwrap()["error"]["code"],
        "installer_checksum_mismatch"
    );
    assert_eq!(d.runs("/srv/cdn/hermes/install.sh"), 0);
    assert!(!d.exists("/usr/local/lib/os-runtimes/hermes"));
    assert_eq!(
        d.state("openclaw.service"),
        ("active".into(), "enabled".into())
    );

    // The right checksum: it runs, and the switch completes.
    let out = cdn(&["--installer-sha256", &sum]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(d.runs("/srv/cdn/hermes/install.sh"), 1);
    assert_eq!(
        d.state("hermes-gateway.service"),
        ("active".into(), "enabled".into())
    );
    assert_eq!(d.agent_runtime(), "hermes");
    assert!(
        d.lab
            .read("/root/.hermes/install.log")
            .unwrap()
            .contains("ran https://127.0.0.1:8443/hermes/install.sh"),
    );
}
