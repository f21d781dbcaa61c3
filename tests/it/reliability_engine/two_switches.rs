//! Two switches started together end 0 and 6: one runs, the other is refused as busy.

use std::path::Path;

use super::stderr;
use crate::reliability_support::*;

/// openclaw active and enabled; hermes installed (unit file and binary) but stopped.
fn switch_device(root: &Path, units: &Path) {
    write(
        root,
        "root/config/config.json",
        b"{\n  \"httpPort\": 5000,\n  \"agent_runtime\": \"openclaw\",\n  \"llm_model\": \"Auto-AI\"\n}\n",
        0o644,
    );
    write(
        root,
        "etc/systemd/system/openclaw.service",
        b"[Service]\n",
        0o644,
    );
    write(
        root,
        "etc/systemd/system/hermes-gateway.service",
        b"[Service]\n",
        0o644,
    );
    write(root, "usr/local/bin/hermes", b"#!/bin/sh\n", 0o755);
    std::fs::create_dir_all(units).unwrap();
    std::fs::write(units.join("openclaw.service.active"), "active\n").unwrap();
    std::fs::write(units.join("openclaw.service.enabled"), "enabled\n").unwrap();
}

/// On a real systemd, `switch hermes` and `switch picoclaw` started together ended 0 and 4 (the
/// second waited, then ran and was rolled back) instead of 0 and 6: the busy check read the
/// lock holder's note, which a new holder could still be writing. Every round must end {0, 6}.
#[test]
fn regression_two_switches_started_together_end_0_and_6() {
    let rounds = budget("OSCTL_SWITCH_RACE_ROUNDS", 6);
    let sandbox = sandbox();
    let mut seen = Vec::new();
    for round in 0..rounds {
        let base = sandbox.path().join(format!("round-{round}"));
        let (root, units) = (base.join("device"), base.join("systemd"));
        switch_device(&root, &units);
        let start = |to: &str| {
            let mut c = osctl(&root);
            // The settle window keeps the first switch holding the lock while the second looks.
            c.args(["switch", to, "--settle", "1", "--no-reconcile"])
                .env("OSCTL_SYSTEMCTL", fake_systemctl())
                .env("FAKE_SYSTEMCTL_DIR", &units)
                .env("FAKE_SYSTEMCTL_ROOT", &root);
            c.spawn().unwrap()
        };
        let (a, b) = if round % 2 == 0 {
            (start("hermes"), start("picoclaw"))
        } else {
            (start("picoclaw"), start("hermes"))
        };
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let mut codes = vec![a.status.code(), b.status.code()];
        codes.sort();
        assert_eq!(
            codes,
            vec![Some(0), Some(6)],
            "round {round}:\n{}\n{}",
            text(&a),
            text(&b)
        );
        let busy = if a.status.code() == Some(6) { &a } else { &b };
        // Refused by the holder's note, or by its switch record once it has written one.
        assert!(
            stderr(busy).contains("another osctl switch is in progress (")
                || stderr(busy).contains("is in progress (pid"),
            "{}",
            text(busy)
        );
        seen.push(codes);
    }
    figures(
        "engine-switch-race",
        &[
            ("rounds", rounds.to_string()),
            ("all_0_and_6", "true".into()),
        ],
    );
}
