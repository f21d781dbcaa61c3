//! The hook shim `/usr/local/bin/runtime-<rt>-presync` (`embedded/presync-hook`) runs
//! `osctl presync <rt>`, taking the runtime from its own file name, or from
//! `OSCTL_PRESYNC_RUNTIME`.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

#[test]
fn the_shim_runs_osctl_presync_for_its_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let shim = dir.path().join("runtime-hermes-presync");
    std::fs::write(&shim, osctl::switch::embedded::PRESYNC_HOOK).unwrap();
    std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A stand-in for osctl that prints its arguments.
    let fake = dir.path().join("osctl");
    std::fs::write(&fake, "#!/bin/sh\necho \"$@\"\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(&shim);
        cmd.env_clear()
            .env("PATH", dir.path())
            .envs(env.iter().copied());
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run(&[]), "presync hermes\n");
    assert_eq!(
        run(&[("OSCTL_PRESYNC_RUNTIME", "codex")]),
        "presync codex\n"
    );
    let real = env!("CARGO_BIN_EXE_osctl");
    // With the real binary as OSCTL (and OSCTL_ROOT), on a device tree.
    let device = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(device.path().join("root/config")).unwrap();
    std::fs::write(
        device.path().join("root/config/config.json"),
        "{\"agent_runtime\": \"hermes\", \"llm_config_mode\": \"runtime\"}\n",
    )
    .unwrap();
    let out = Command::new(&shim)
        .env_clear()
        .env("OSCTL", real)
        .env("OSCTL_ROOT", device.path())
        .env("OSCTL_PRESYNC_RUNTIME", "hermes")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(device.path().join("root/.hermes/config.yaml").exists());
}
