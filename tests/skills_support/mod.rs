//! Test support for `skills` tests: a real HTTP server on 127.0.0.1 (std `TcpListener`, a thread
//! per connection), deterministic skill zips built the way upstream's release script builds them
//! (sorted entries, 1980-01-01 timestamps, mode 0644, deflate), signed metadata envelopes, and a
//! small device tree.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// What the server answers for a path.
#[derive(Clone, Debug)]
pub enum Reply {
    Ok(Vec<u8>),
    Status(u16),
    /// Promises `Content-Length: claimed`, sends `body`, closes.
    Truncated {
        body: Vec<u8>,
        claimed: usize,
    },
    /// Sends headers and a few bytes, then goes silent for `secs`.
    Stall {
        secs: u64,
    },
}

#[derive(Clone, Default)]
pub struct Server {
    routes: Arc<Mutex<HashMap<String, Reply>>>,
    log: Arc<Mutex<Vec<String>>>,
    pub base: String,
}

impl Server {
    /// Starts serving on an ephemeral loopback port.
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let server = Server {
            base,
            ..Default::default()
        };
        let s = server.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let s = s.clone();
                std::thread::spawn(move || s.handle(stream));
            }
        });
        server
    }

    fn handle(&self, mut stream: TcpStream) {
        let mut req = Vec::new();
        let mut buf = [0u8; 4096];
        while !req.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => req.extend_from_slice(&buf[..n]),
            }
        }
        let text = String::from_utf8_lossy(&req);
        let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
        self.log.lock().unwrap().push(path.clone());
        let reply = self
            .routes
            .lock()
            .unwrap()
            .get(&path)
            .cloned()
            .unwrap_or(Reply::Status(404));
        let head = |status: &str, len: usize| {
            format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n")
        };
        match reply {
            Reply::Ok(body) => {
                let _ = stream.write_all(head("200 OK", body.len()).as_bytes());
                let _ = stream.write_all(&body);
            }
            Reply::Status(code) => {
                let _ = stream.write_all(head(&format!("{code} Status"), 0).as_bytes());
            }
            Reply::Truncated { body, claimed } => {
                let _ = stream.write_all(head("200 OK", claimed).as_bytes());
                let _ = stream.write_all(&body);
            }
            Reply::Stall { secs } => {
                let _ = stream.write_all(head("200 OK", 1000).as_bytes());
                let _ = stream.write_all(b"PK");
                let _ = stream.flush();
                std::thread::sleep(Duration::from_secs(secs));
            }
        }
        let _ = stream.flush();
    }

    pub fn set(&self, path: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(path.to_string(), reply);
    }

    /// The paths requested so far (and forgets them).
    pub fn take_log(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }

    pub fn metadata_url(&self) -> String {
        format!("{}/os/ota/metadata.json", self.base)
    }
}

/// A deterministic skill zip of `files` (path → bytes), as upstream's `upload-skills.sh` builds it.
pub fn skill_zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(files, None)
}

/// The same files stored uncompressed: other zip bytes (another version), the same unpacked
/// content.
pub fn skill_zip_stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(files, Some(zip::CompressionMethod::Stored))
}

fn zip_with(files: &[(&str, &[u8])], method: Option<zip::CompressionMethod>) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut sorted: Vec<_> = files.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default()
        .compression_method(method.unwrap_or(zip::CompressionMethod::Deflated))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    for (name, bytes) in sorted {
        w.start_file(name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A zip with one symlink entry.
pub fn symlink_zip() -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().last_modified_time(zip::DateTime::default());
    w.start_file("SKILL.md", opts).unwrap();
    w.write_all(b"# evil\n").unwrap();
    w.add_symlink("data", "/etc/shadow", opts).unwrap();
    w.finish().unwrap().into_inner()
}

/// A zip bomb: `copies` entries of 1 MiB of zeros each, the compressed entry copied raw so the
/// test never deflates more than 1 MiB.
pub fn bomb_zip(copies: usize) -> Vec<u8> {
    let one = skill_zip(&[("zeros", &vec![0u8; 1 << 20])]);
    let mut src = zip::ZipArchive::new(std::io::Cursor::new(one)).unwrap();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.start_file(
        "SKILL.md",
        zip::write::SimpleFileOptions::default().last_modified_time(zip::DateTime::default()),
    )
    .unwrap();
    w.write_all(b"# bomb\n").unwrap();
    for i in 0..copies {
        let f = src.by_index_raw(0).unwrap();
        w.raw_copy_file_rename(f, format!("z/{i:04}")).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The version of a zip: the first 12 hex characters of its sha256.
pub fn version_of(zip: &[u8]) -> String {
    hex::encode(Sha256::digest(zip))[..12].to_string()
}

/// The signing key of these tests, and its public half as bootstrap.json holds it.
pub fn test_key() -> SigningKey {
    SigningKey::from_bytes(&[42u8; 32])
}

pub fn public_key_b64(k: &SigningKey) -> String {
    STANDARD.encode(k.verifying_key().to_bytes())
}

/// A metadata document listing `skills` (name → version).
pub fn metadata(skills: &BTreeMap<String, String>) -> Value {
    let entries: serde_json::Map<String, Value> = skills
        .iter()
        .map(|(n, v)| {
            (
                n.clone(),
                json!({"version": v, "updated_at": "2026-01-01 00:00:00 +0000"}),
            )
        })
        .collect();
    json!({"os-server": {"version": "1.2.3"}, "skills": entries})
}

/// The hybrid signed feed upstream publishes: payload keys at the top level plus `signed`.
pub fn signed_envelope(payload: &Value, key: &SigningKey) -> Vec<u8> {
    let bytes = serde_json::to_vec_pretty(payload).unwrap();
    let sig = key.sign(&bytes);
    let mut doc = payload.clone();
    doc["signed"] = json!({
        "format": "autonomous-ota/v1",
        "payload": STANDARD.encode(&bytes),
        "signature": {"algorithm": "ed25519", "key_id": "test-key", "value": STANDARD.encode(sig.to_bytes())}
    });
    serde_json::to_vec_pretty(&doc).unwrap()
}

/// A device tree: openclaw active, a lamp with `caps`, bootstrap.json pointing at `server`.
pub struct Device {
    pub dir: tempfile::TempDir,
}

pub const OPENCLAW_JSON: &str =
    "{\n  // the owner's gateway\n  \"gateway\": {\"port\": 18789}\n}\n";

impl Device {
    pub fn new(server: &Server, caps: &[&str], signing_key: Option<&str>) -> Device {
        let dir = tempfile::tempdir().unwrap();
        let d = Device { dir };
        d.write(
            "root/config/config.json",
            "{\"agent_runtime\": \"openclaw\", \"device_type\": \"lamp\"}\n",
        );
        let mut bootstrap = json!({"metadata_url": server.metadata_url()});
        if let Some(k) = signing_key {
            bootstrap["signing_public_key"] = k.into();
        }
        d.write(
            "root/config/bootstrap.json",
            &serde_json::to_string_pretty(&bootstrap).unwrap(),
        );
        let mut robot = String::from("---\nname: Lamp\ncapabilities:\n");
        for c in caps {
            robot.push_str(&format!("  {c}: yes\n"));
        }
        robot.push_str("---\n# Lamp\n");
        d.write("opt/devices/lamp/ROBOT.md", &robot);
        d.write("root/.openclaw/openclaw.json", OPENCLAW_JSON);
        d
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.path(rel)).ok()
    }

    /// Runs osctl on this device.
    pub fn osctl(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_osctl"))
            .arg("--root")
            .arg(self.root())
            .args(args)
            .env_remove("OSCTL_FAULT")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }

    /// Every file under `rel` with its bytes and mode (folders with their mode), for
    /// byte-identical comparisons.
    pub fn snapshot(&self, rel: &str) -> BTreeMap<String, (Option<Vec<u8>>, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let base = self.path(rel);
        if !base.exists() {
            return BTreeMap::new();
        }
        walkdir::WalkDir::new(&base)
            .into_iter()
            .map(|e| e.unwrap())
            .map(|e| {
                let rel = e.path().strip_prefix(&base).unwrap().display().to_string();
                let meta = std::fs::symlink_metadata(e.path()).unwrap();
                let content = meta.is_file().then(|| std::fs::read(e.path()).unwrap());
                (rel, (content, meta.permissions().mode() & 0o7777))
            })
            .collect()
    }
}

/// The `--json` document of a run.
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A skills CDN on loopback: metadata, zips and hooks under `/os/…`, as upstream lays it out.
pub struct Cdn {
    pub server: Server,
    pub versions: BTreeMap<String, String>,
    /// Signs the metadata when set.
    pub key: Option<SigningKey>,
}

impl Cdn {
    pub fn new(signed: bool) -> Cdn {
        let cdn = Cdn {
            server: Server::start(),
            versions: BTreeMap::new(),
            key: signed.then(test_key),
        };
        cdn.refresh();
        cdn
    }

    /// Publishes a skill built from `files`; returns its version.
    pub fn publish(&mut self, name: &str, files: &[(&str, &[u8])]) -> String {
        let zip = skill_zip(files);
        let version = version_of(&zip);
        self.publish_raw(name, zip, &version);
        version
    }

    /// Serves `zip` for `name` and lists it under `version` (which need not match).
    pub fn publish_raw(&mut self, name: &str, zip: Vec<u8>, version: &str) {
        self.server
            .set(&format!("/os/skills/{name}.zip"), Reply::Ok(zip));
        self.versions.insert(name.to_string(), version.to_string());
        self.refresh();
    }

    /// Lists `name` under `version` and answers its zip with `reply`.
    pub fn publish_reply(&mut self, name: &str, reply: Reply, version: &str) {
        self.server.set(&format!("/os/skills/{name}.zip"), reply);
        self.versions.insert(name.to_string(), version.to_string());
        self.refresh();
    }

    pub fn refresh(&self) {
        let doc = metadata(&self.versions);
        let body = match &self.key {
            Some(k) => signed_envelope(&doc, k),
            None => serde_json::to_vec_pretty(&doc).unwrap(),
        };
        self.server.set("/os/ota/metadata.json", Reply::Ok(body));
    }

    pub fn hook(&self, name: &str, hook_md: &str, handler: &str) {
        self.server.set(
            &format!("/os/hooks/{name}/HOOK.md"),
            Reply::Ok(hook_md.as_bytes().to_vec()),
        );
        self.server.set(
            &format!("/os/hooks/{name}/handler.ts"),
            Reply::Ok(handler.as_bytes().to_vec()),
        );
    }

    pub fn zip_requests(&self) -> Vec<String> {
        self.server
            .take_log()
            .into_iter()
            .filter(|p| p.ends_with(".zip"))
            .collect()
    }
}
