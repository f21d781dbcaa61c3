//! Bad-input suite: every input of the corpus (`tests/corpus/<format>/`, written by
//! `tests/corpus/generate.py`; each folder's `MANIFEST.toml` says where an input is planted and
//! which command reads it) is planted into a sample device, or served by a loopback CDN, or
//! given on the command line. For each: no panic (exit 101 or a signal fails the suite), the
//! documented exit code, an error on stderr (or, for doctor, a finding in its report) that names
//! the file (and `file:line` where the manifest gives a line), and a device tree byte-identical to the one before the run (every
//! file with its mode, every link and empty folder; no journal left).
//!
//! `OSCTL_CORPUS=<substring>` runs only the inputs whose `<folder>/<file>` contains it.

use crate::skills_support;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;

use crate::reliability_support::*;
use crate::skills_support::{Reply, Server};

struct Input {
    id: String,
    file: Option<Vec<u8>>,
    keys: BTreeMap<String, toml_edit::Item>,
}

impl Input {
    fn str(&self, k: &str) -> Option<String> {
        self.keys
            .get(k)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    }
    fn int(&self, k: &str) -> Option<i64> {
        self.keys.get(k).and_then(|v| v.as_integer())
    }
    fn flag(&self, k: &str) -> bool {
        self.keys.get(k).and_then(|v| v.as_bool()).unwrap_or(false)
    }
    fn args(&self) -> Vec<String> {
        self.keys
            .get("args")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    }
}

fn corpus() -> Vec<Input> {
    let base = repo().join("tests/corpus");
    let filter = std::env::var("OSCTL_CORPUS").unwrap_or_default();
    let mut out = Vec::new();
    let mut folders: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("MANIFEST.toml").exists())
        .map(|e| e.path())
        .collect();
    folders.sort();
    for dir in folders {
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(dir.join("MANIFEST.toml")).unwrap();
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        let defaults: BTreeMap<String, toml_edit::Item> = doc
            .iter()
            .filter(|(k, _)| *k != "input")
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        for table in doc["input"].as_array_of_tables().unwrap() {
            let mut keys = defaults.clone();
            for (k, v) in table.iter() {
                keys.insert(k.to_string(), v.clone());
            }
            let name = keys
                .get("file")
                .or(keys.get("name"))
                .and_then(|v| v.as_str())
                .unwrap()
                .to_string();
            let id = format!("{folder}/{name}");
            if !id.contains(&filter) {
                continue;
            }
            let file = keys
                .get("file")
                .and_then(|v| v.as_str())
                .map(|f| std::fs::read(dir.join(f)).unwrap());
            out.push(Input { id, file, keys });
        }
    }
    out
}

/// The skills device: a lamp (audio, light) running openclaw whose bootstrap.json names the
/// loopback CDN, which lists one good skill and serves the lamp's hook (so only the planted
/// input can fail the run). The device is synced once with the good feed before the input is
/// planted: what a refused input must leave alone is a synced device, not a first sync.
fn skills_device(root: &Path, server: &Server, signing_key: bool) {
    write(
        root,
        "root/config/config.json",
        b"{\"agent_runtime\": \"openclaw\", \"device_type\": \"lamp\"}\n",
        0o644,
    );
    write(
        root,
        "opt/devices/lamp/ROBOT.md",
        b"---\nname: Lamp\ncapabilities:\n  audio: yes\n  light: yes\n---\n# Lamp\n",
        0o644,
    );
    write(
        root,
        "root/.openclaw/openclaw.json",
        skills_support::OPENCLAW_JSON.as_bytes(),
        0o644,
    );
    write(
        root,
        "root/.openclaw/workspace/skills/audio/SKILL.md",
        b"# Audio (installed before)\n",
        0o644,
    );
    skills_bootstrap(root, server, false);
    let out = osctl(root).args(["skills", "sync"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "baseline sync: {}", text(&out));
    if signing_key {
        skills_bootstrap(root, server, true);
    }
}

fn skills_bootstrap(root: &Path, server: &Server, signing_key: bool) {
    let mut bootstrap = serde_json::json!({"metadata_url": server.metadata_url()});
    if signing_key {
        bootstrap["signing_public_key"] =
            skills_support::public_key_b64(&skills_support::test_key()).into();
    }
    write(
        root,
        "root/config/bootstrap.json",
        serde_json::to_string_pretty(&bootstrap).unwrap().as_bytes(),
        0o644,
    );
}

/// Serves a good skill `audio` and its metadata.
fn serve_good(server: &Server) {
    let zip = skills_support::skill_zip(&[("SKILL.md", b"# Audio\n")]);
    let version = skills_support::version_of(&zip);
    server.set("/os/skills/audio.zip", Reply::Ok(zip));
    let mut skills = BTreeMap::new();
    skills.insert("audio".to_string(), version);
    server.set(
        "/os/ota/metadata.json",
        Reply::Ok(serde_json::to_vec(&skills_support::metadata(&skills)).unwrap()),
    );
    server.set(
        "/os/hooks/turn-gate/HOOK.md",
        Reply::Ok(b"# turn-gate\n".to_vec()),
    );
    server.set(
        "/os/hooks/turn-gate/handler.ts",
        Reply::Ok(b"export default () => {};\n".to_vec()),
    );
}

fn decode_arg(arg: &str, input: &Input, root: &Path) -> OsString {
    let mut arg = arg.replace("ROOT", &root.to_string_lossy());
    if input.flag("expand") {
        while let Some(start) = arg.find('<') {
            let end = start + arg[start..].find('>').unwrap();
            let (c, n) = arg[start + 1..end].split_once('*').unwrap();
            arg.replace_range(start..=end, &c.repeat(n.parse().unwrap()));
        }
    }
    if !input.flag("raw") {
        return arg.into();
    }
    let mut bytes = Vec::new();
    let b = arg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            bytes.push(u8::from_str_radix(&arg[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            bytes.push(b[i]);
            i += 1;
        }
    }
    OsString::from_vec(bytes)
}

/// Runs one input; returns what went wrong (empty when it passed), and whether it panicked and
/// whether the tree changed (for the figures).
fn run(input: &Input, server: &Server, scratch: &Path) -> (Vec<String>, bool, bool) {
    let root = scratch.join("device");
    let _ = std::fs::remove_dir_all(&root);
    let device = input.str("device").unwrap();
    serve_good(server);
    if device == "skills" {
        skills_device(&root, server, input.flag("bootstrap_key"));
    } else {
        copy_tree(&repo().join(&device), &root);
    }
    let path = input.str("path");
    if let (Some(bytes), Some(serve)) = (&input.file, input.str("serve")) {
        if serve.ends_with(".zip") {
            let version = input
                .str("version")
                .unwrap_or_else(|| skills_support::version_of(bytes));
            let mut skills = BTreeMap::new();
            skills.insert("audio".to_string(), version);
            server.set(
                "/os/ota/metadata.json",
                Reply::Ok(serde_json::to_vec(&skills_support::metadata(&skills)).unwrap()),
            );
        }
        server.set(&serve, Reply::Ok(bytes.clone()));
    } else if let (Some(bytes), Some(path)) = (&input.file, &path) {
        let text = String::from_utf8_lossy(bytes);
        let planted = if text.contains("SERVER") && std::str::from_utf8(bytes).is_ok() {
            text.replace("SERVER", &server.base).into_bytes()
        } else {
            bytes.clone()
        };
        write(&root, path.trim_start_matches('/'), &planted, 0o644);
    }
    let before = snapshot(&root);
    let mut cmd = osctl(&root);
    if input.flag("no_root") {
        cmd = std::process::Command::new(env!("CARGO_BIN_EXE_osctl"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null());
    }
    for a in input.args() {
        cmd.arg(decode_arg(&a, input, &root));
    }
    let out = cmd.output().unwrap();
    let mut stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // doctor's findings are its report, on stdout.
    if input.flag("stdout") {
        stderr.push_str(&String::from_utf8_lossy(&out.stdout));
    }
    let mut problems = Vec::new();
    let panicked = matches!(out.status.code(), Some(101) | None);
    if panicked {
        problems.push(format!("panicked or died: {}", text(&out)));
    }
    let expected = input.int("exit").unwrap() as i32;
    if !panicked && out.status.code() != Some(expected) {
        problems.push(format!(
            "exit {:?}, documented {expected}: {}",
            out.status.code(),
            shorten(&stderr)
        ));
    }
    let names = input.str("names").or(path.clone());
    if let Some(names) = names
        && !stderr.contains(&names)
    {
        problems.push(format!(
            "the error does not name {names}: {}",
            shorten(&stderr)
        ));
    }
    if let (Some(line), Some(path)) = (input.int("line"), &path)
        && !stderr.contains(&format!("{path}:{line}"))
    {
        problems.push(format!(
            "the error does not name {path}:{line}: {}",
            shorten(&stderr)
        ));
    }
    let after = snapshot(&root);
    let changed = after != before || !journals(&root).is_empty();
    if changed {
        problems.push(format!(
            "the tree changed: {}",
            describe_diff(&before, &after)
        ));
    }
    (problems, panicked, changed)
}

fn shorten(s: &str) -> String {
    let s: String = s.chars().take(600).collect();
    s.replace('\n', " | ")
}

#[test]
fn every_bad_input_is_refused_cleanly_and_changes_nothing() {
    let inputs = corpus();
    assert!(!inputs.is_empty(), "no corpus inputs found");
    let server = Server::start();
    let scratch = sandbox();
    let (mut panics, mut changed, mut failed) = (0, 0, Vec::new());
    let mut by_folder: BTreeMap<String, usize> = BTreeMap::new();
    for input in &inputs {
        *by_folder
            .entry(input.id.split('/').next().unwrap().to_string())
            .or_default() += 1;
        let (problems, panicked, tree_changed) = run(input, &server, scratch.path());
        panics += panicked as usize;
        changed += tree_changed as usize;
        if !problems.is_empty() {
            let what = input.str("what").unwrap_or_default();
            failed.push(format!(
                "{} ({what}):\n  {}",
                input.id,
                problems.join("\n  ")
            ));
        }
    }
    figures(
        "bad-input",
        &[
            ("inputs", inputs.len().to_string()),
            ("formats", by_folder.len().to_string()),
            ("panics", panics.to_string()),
            ("trees_changed", changed.to_string()),
            ("failed", failed.len().to_string()),
        ],
    );
    assert!(
        failed.is_empty(),
        "{} of {} inputs failed:\n{}",
        failed.len(),
        inputs.len(),
        failed.join("\n")
    );
    if std::env::var("OSCTL_CORPUS").is_err() {
        assert!(
            inputs.len() >= 150,
            "the corpus has {} inputs",
            inputs.len()
        );
    }
}
