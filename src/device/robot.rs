//! The robot profile: `${DEVICES_DIR:-/opt/devices}/<device_type>/ROBOT.md` (falling back to
//! `DEVICE.md`), whose YAML front matter names the default runtime (`gateway.default`), the
//! device's `capabilities:` and its `soul_ref:` (docs/device-contract.md §3.2).
//!
//! os-server reads the front matter with regexes and understands only the block form of
//! `gateway:`. osctl reads the same way, line by line, and also accepts the flow form
//! (`gateway: { default: openclaw }`, used by the upstream template) with a warning, because the
//! device itself would ignore it.

use crate::error::{Error, Location, Result};
use crate::path::DevPath;
use crate::system::fs::RootFs;

/// A value read from the front matter, with its 1-based line in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub value: String,
    pub line: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RobotProfile {
    pub path: Option<DevPath>,
    /// `gateway.default`.
    pub gateway_default: Option<Located>,
    /// `gateway.default` was written in flow form, which os-server does not read.
    pub gateway_flow_form: bool,
    /// Keys of the `capabilities:` block, in file order.
    pub capabilities: Vec<String>,
    /// `soul_ref:`: a path relative to the device folder, or an http(s) URL.
    pub soul_ref: Option<String>,
    /// The first key osctl reads whose value has the wrong shape (`gateway: brain-b`,
    /// `default: [brain-b]`): [`RobotProfile::load`] refuses the profile with it, rather than
    /// reading the key as absent and falling down the resolution chain (issue 26).
    pub wrong_type: Option<WrongType>,
}

/// A front-matter key whose value is not of its declared type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrongType {
    pub key: &'static str,
    pub expected: &'static str,
    pub found: &'static str,
    pub line: usize,
    pub column: usize,
}

impl RobotProfile {
    /// Finds and reads the profile of `device_type`; an empty profile when there is no type or
    /// no file. A device type that is not a plain folder name is refused.
    pub fn load(
        fs: &RootFs,
        devices_dir: &DevPath,
        device_type: Option<&str>,
    ) -> Result<RobotProfile> {
        let Some(device_type) = device_type.map(str::trim).filter(|t| !t.is_empty()) else {
            return Ok(RobotProfile::default());
        };
        if device_type.contains('/')
            || device_type == "."
            || device_type == ".."
            || device_type.contains('\0')
        {
            return Err(Error::input(
                "bad_device_type",
                format!("device_type `{device_type}` is not a folder name under {devices_dir}"),
            ));
        }
        let dir = devices_dir.join(device_type);
        for name in ["ROBOT.md", "DEVICE.md"] {
            let path = dir.join(name);
            if let Some(text) = fs.read_text(&path)? {
                let mut profile = parse(&text);
                if let Some(w) = &profile.wrong_type {
                    return Err(Error::input(
                        "wrong_type",
                        format!(
                            "{path}: {} must be {}, found {}",
                            w.key, w.expected, w.found
                        ),
                    )
                    .at(Location {
                        file: path.to_string(),
                        line: Some(w.line),
                        column: Some(w.column),
                    })
                    .hint(format!(
                        "nothing was written; fix {} in {path} (the device's robot profile)",
                        w.key
                    )));
                }
                profile.path = Some(path);
                return Ok(profile);
            }
        }
        Ok(RobotProfile::default())
    }

    /// The folder that holds the profile (soul_ref paths are relative to it).
    pub fn dir(&self) -> Option<DevPath> {
        self.path.as_ref().and_then(|p| p.parent())
    }

    /// Why a path `soul_ref` is refused, if it is: it must name a file inside the devices folder
    /// (`/opt/devices`), where it really is (`..` and links followed under the root). A soul
    /// that came from anywhere else would copy any file of the device (a key, a password file)
    /// into every runtime's SOUL.md. URLs are not paths (presync says it does not fetch them).
    pub fn soul_containment(&self, fs: &RootFs, devices_dir: &DevPath) -> Result<Option<String>> {
        let (Some(reference), Some(dir)) = (self.soul_ref.as_deref(), self.dir()) else {
            return Ok(None);
        };
        let reference = reference.trim();
        if reference.is_empty() || reference.contains("://") {
            return Ok(None);
        }
        let lexical = dir.join(reference.trim_start_matches('/'));
        let root_of = |p: &DevPath| -> Result<DevPath> {
            let host = fs.host(p)?;
            Ok(match host.strip_prefix(fs.root()) {
                Ok(rel) => DevPath::new(rel),
                Err(_) => DevPath::new("/"),
            })
        };
        let devices = root_of(devices_dir)?;
        let real = root_of(&lexical)?;
        let shown = self
            .path
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default();
        if !lexical.starts_with(devices_dir) || !real.starts_with(&devices) || real == devices {
            let at = if real == lexical {
                String::new()
            } else {
                format!(", at {real}")
            };
            return Ok(Some(format!(
                "{shown}: soul_ref `{reference}` ({lexical}{at}) is outside the devices folder {devices_dir}"
            )));
        }
        Ok(None)
    }
}

/// Parses the front matter of a ROBOT.md text.
pub fn parse(text: &str) -> RobotProfile {
    let mut profile = RobotProfile::default();
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim_start_matches('\u{feff}').trim_end() == "---" => {}
        _ => return profile,
    }
    let front: Vec<(usize, &str)> = lines
        .take_while(|(_, l)| !matches!(l.trim_end(), "---" | "..."))
        .map(|(i, l)| (i + 1, l))
        .collect();
    let mut i = 0;
    while i < front.len() {
        let (line_no, line) = front[i];
        let indent = indent_of(line);
        let Some((key, rest)) = split_key(line) else {
            i += 1;
            continue;
        };
        if indent != 0 {
            i += 1;
            continue;
        }
        let children = block_children(&front, i);
        // Where the value starts on its line (1-based), for a wrong type.
        let column = |l: &str, v: &str| l.find(v).map_or(1, |at| at + 1);
        let mut wrong = |key, expected, found, line, column| {
            profile.wrong_type.get_or_insert(WrongType {
                key,
                expected,
                found,
                line,
                column,
            });
        };
        match key {
            "gateway" if !is_empty(rest) && !rest.starts_with('{') => wrong(
                "gateway",
                "a block (`gateway:`, then `  default: <runtime>` on its own line)",
                shape(rest),
                line_no,
                column(line, rest),
            ),
            "gateway" if rest.starts_with('{') => {
                if let Some(v) = flow_get(rest, "default") {
                    profile.gateway_default = Some(Located {
                        value: v,
                        line: line_no,
                    });
                    profile.gateway_flow_form = true;
                }
            }
            "gateway" => {
                for &(n, child) in &children {
                    if let Some(("default", v)) = split_key(child)
                        && (v.starts_with('[') || v.starts_with('{'))
                    {
                        wrong(
                            "gateway.default",
                            "a runtime name",
                            shape(v),
                            n,
                            column(child, v),
                        );
                    } else if let Some(("default", v)) = split_key(child)
                        && !v.is_empty()
                    {
                        profile.gateway_default = Some(Located {
                            value: scalar(v),
                            line: n,
                        });
                    }
                }
            }
            "capabilities" if rest.starts_with('[') => {
                profile.capabilities = rest
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(scalar)
                    .filter(|s| !s.is_empty())
                    .collect();
            }
            "capabilities" if rest.starts_with('{') => {
                profile.capabilities = rest
                    .trim_matches(|c| c == '{' || c == '}')
                    .split(',')
                    .filter_map(|kv| kv.split(':').next())
                    .map(scalar)
                    .filter(|s| !s.is_empty())
                    .collect();
            }
            "capabilities" if !is_empty(rest) => wrong(
                "capabilities",
                "a block of capabilities or a list",
                shape(rest),
                line_no,
                column(line, rest),
            ),
            "capabilities" => {
                let child_indent = children.first().map(|(_, l)| indent_of(l));
                for &(_, child) in &children {
                    if Some(indent_of(child)) != child_indent {
                        continue;
                    }
                    let t = child.trim();
                    if let Some(item) = t.strip_prefix("- ") {
                        profile.capabilities.push(scalar(item));
                    } else if let Some((k, _)) = split_key(child) {
                        profile.capabilities.push(k.to_string());
                    }
                }
            }
            "soul_ref" if rest.starts_with('[') || rest.starts_with('{') => wrong(
                "soul_ref",
                "a path or an http(s) URL",
                shape(rest),
                line_no,
                column(line, rest),
            ),
            "soul_ref" if !rest.is_empty() => profile.soul_ref = Some(scalar(rest)),
            _ => {}
        }
        i += 1 + children.len();
    }
    profile
}

/// A YAML value that is no value at all: nothing, `~` or `null` (a key left empty).
fn is_empty(v: &str) -> bool {
    matches!(v.trim(), "" | "~" | "null" | "Null" | "NULL")
}

/// What a YAML value is, in words, for a wrong type.
fn shape(v: &str) -> &'static str {
    match v.trim_start().chars().next() {
        Some('[') => "a list",
        Some('{') => "a mapping",
        _ => "a single value",
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines indented under the key at `at` (blank and comment lines skipped).
fn block_children<'a>(front: &[(usize, &'a str)], at: usize) -> Vec<(usize, &'a str)> {
    let base = indent_of(front[at].1);
    front[at + 1..]
        .iter()
        .take_while(|(_, l)| {
            l.trim().is_empty() || l.trim_start().starts_with('#') || indent_of(l) > base
        })
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .copied()
        .collect()
}

/// `key: rest` → (`key`, `rest` without a trailing comment).
fn split_key(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    if t.starts_with('#') || t.starts_with('-') {
        return None;
    }
    let (k, v) = t.split_once(':')?;
    let k = k.trim().trim_matches(|c| c == '"' || c == '\'');
    if k.is_empty() || k.contains(' ') {
        return None;
    }
    Some((k, strip_comment(v.trim())))
}

fn strip_comment(v: &str) -> &str {
    if v.starts_with('"') || v.starts_with('\'') {
        return v;
    }
    match v.find(" #") {
        Some(i) => v[..i].trim_end(),
        None => v,
    }
}

fn scalar(v: &str) -> String {
    strip_comment(v.trim())
        .trim()
        .trim_matches(|c| c == '"' || c == '\'')
        .trim()
        .to_string()
}

/// `{ default: openclaw, protocol: websocket }` → the value of `key`.
fn flow_get(flow: &str, key: &str) -> Option<String> {
    let inner = flow.trim().trim_start_matches('{');
    let inner = inner.split('}').next().unwrap_or("");
    inner.split(',').find_map(|kv| {
        let (k, v) = kv.split_once(':')?;
        (scalar(k) == key).then(|| scalar(v))
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn block_form() {
        let p = parse(
            "---\nname: Lamp\ngateway:\n  default: hermes   # brain\n  protocol: websocket\ncapabilities:\n  audio: mic and speaker\n  light:\n    - rgb\n  vision: camera\nsoul_ref: souls/lamp.md\n---\n# Lamp\n",
        );
        assert_eq!(
            p.gateway_default,
            Some(Located {
                value: "hermes".into(),
                line: 4
            })
        );
        assert!(!p.gateway_flow_form);
        assert_eq!(p.capabilities, vec!["audio", "light", "vision"]);
        assert_eq!(p.soul_ref.as_deref(), Some("souls/lamp.md"));
    }

    #[test]
    fn flow_form_is_read_and_flagged() {
        let p = parse(
            "---\ngateway: { default: \"PicoClaw\", protocol: websocket }\ncapabilities: [audio, motion]\n---\n",
        );
        assert_eq!(p.gateway_default.as_ref().unwrap().value, "PicoClaw");
        assert!(p.gateway_flow_form);
        assert_eq!(p.capabilities, vec!["audio", "motion"]);
    }

    /// Issue 26: a key of the wrong shape read as absent, so `gateway.default: [brain-b]` fell
    /// through to the built-in default. Each is now the first wrong type, with its line and column.
    #[test]
    fn regression_wrong_shapes_are_wrong_types_not_absent() {
        for (text, key, found, line, column) in [
            (
                "---\ngateway:\n  default: [brain-b]\n---\n",
                "gateway.default",
                "a list",
                3,
                12,
            ),
            (
                "---\ngateway:\n  default: {rt: brain-b}\n---\n",
                "gateway.default",
                "a mapping",
                3,
                12,
            ),
            (
                "---\nname: x\ngateway: brain-b\n---\n",
                "gateway",
                "a single value",
                3,
                10,
            ),
            (
                "---\ncapabilities: audio\n---\n",
                "capabilities",
                "a single value",
                2,
                15,
            ),
            ("---\nsoul_ref: [a.md]\n---\n", "soul_ref", "a list", 2, 11),
        ] {
            let w = parse(text)
                .wrong_type
                .unwrap_or_else(|| panic!("{text:?} accepted"));
            assert_eq!(
                (w.key, w.found, w.line, w.column),
                (key, found, line, column),
                "{text:?}"
            );
        }
        for fine in [
            "---\ngateway: { default: brain-b }\n---\n",
            "---\ngateway: ~\ncapabilities: null\n---\n",
        ] {
            assert_eq!(parse(fine).wrong_type, None, "{fine:?}");
        }
    }

    #[test]
    fn no_front_matter_is_an_empty_profile() {
        assert_eq!(
            parse("# Lamp\ngateway:\n  default: hermes\n"),
            RobotProfile::default()
        );
    }
    /// A `soul_ref` that climbed out of the devices folder (`../../etc/shadow`, a link to one)
    /// was read into every runtime's SOUL.md.
    #[test]
    fn regression_soul_ref_outside_the_devices_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::create_dir_all(r.join("opt/devices/lamp/souls")).unwrap();
        std::fs::create_dir_all(r.join("etc")).unwrap();
        std::fs::write(r.join("etc/shadow"), "root:secret\n").unwrap();
        std::fs::write(r.join("opt/devices/lamp/souls/lamp.md"), "# soul\n").unwrap();
        std::os::unix::fs::symlink("/etc/shadow", r.join("opt/devices/lamp/souls/link.md"))
            .unwrap();
        let fs = RootFs::new(r).unwrap();
        let devices = DevPath::new("/opt/devices");
        let check = |soul: &str| {
            std::fs::write(
                r.join("opt/devices/lamp/ROBOT.md"),
                format!("---\nsoul_ref: {soul}\n---\n"),
            )
            .unwrap();
            let p = RobotProfile::load(&fs, &devices, Some("lamp")).unwrap();
            p.soul_containment(&fs, &devices).unwrap()
        };
        assert_eq!(check("souls/lamp.md"), None);
        assert_eq!(check("https://cdn.example/soul.md"), None);
        for bad in ["../../../etc/shadow", "souls/link.md", "/../../etc/shadow"] {
            let why = check(bad).unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(why.contains("outside the devices folder"), "{why}");
        }
    }
}
