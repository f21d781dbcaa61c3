//! After every step: the model's promises (runtimes' own edits, the owner's text, channels,
//! MCP servers), the status probe and the operability of every read-only command and preview.

use super::*;

impl Life<'_> {
    // ---- after every step ----

    pub(super) fn configured_channels(&self) -> BTreeSet<String> {
        let Some(v) = self
            .dev
            .read("root/config/config.json")
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        else {
            return BTreeSet::new();
        };
        CHANNELS
            .iter()
            .filter(|c| v[channel_field(c)].as_str().is_some_and(|s| !s.is_empty()))
            .map(|c| c.to_string())
            .collect()
    }

    /// The model's promises: runtimes' own edits, the owner's text, channels, MCP servers.
    pub(super) fn check_model(&mut self) {
        let edits = self.model.edits.clone();
        for (path, marker, rt) in &edits {
            let ok = self
                .dev
                .read(path)
                .is_some_and(|t| t.contains(marker.as_str()));
            if !ok {
                self.violate(
                    "own-edit-kept",
                    &format!("{rt}'s /{path}"),
                    format!(
                        "the runtime's own `{marker}` is gone; the file is now:\n{}",
                        self.dev.read(path).unwrap_or_else(|| "(absent)".into())
                    ),
                );
                self.model
                    .edits
                    .retain(|(p, m, _)| !(p == path && m == marker));
            }
        }
        let owner = self.model.owner.clone();
        for (path, line) in &owner {
            if !self.owner_line_kept(path, line) {
                self.violate(
                    "owner-text-kept",
                    &format!("/{path}"),
                    format!(
                        "the owner's line {line:?} is in neither the file nor a backup of it; the file is now:\n{}",
                        self.dev.read(path).unwrap_or_else(|| "(absent)".into())
                    ),
                );
                self.model.owner.retain(|(p, l)| !(p == path && l == line));
            }
        }
        let channels = self.configured_channels();
        if channels != self.model.channels {
            self.violate(
                "model",
                "config.json channels",
                format!(
                    "config.json holds credentials for {channels:?}, expected {:?}",
                    self.model.channels
                ),
            );
            self.model.channels = channels;
        }
    }

    pub(super) fn owner_line_kept(&self, path: &str, line: &str) -> bool {
        if self.dev.read(path).is_some_and(|t| t.contains(line)) {
            return true;
        }
        let full = self.dev.root.join(path);
        let (Some(dir), Some(name)) = (full.parent(), full.file_name()) else {
            return false;
        };
        let prefix = format!("{}.bak-", name.to_string_lossy());
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_name().to_string_lossy().starts_with(&prefix)
                    && std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(line))
            })
    }

    /// `osctl --json status`: must work in every state; it gives the active runtime and each
    /// runtime's MCP servers, which the model checks.
    pub(super) fn status_probe(&mut self) {
        self.stats.probes += 1;
        let out = self.run(&s(&["--json", "status"]));
        if out.code == Some(1) && wrong_type::refused(&out.stdout, &out.stderr) {
            // A device whose state files hold a key of the wrong type (a wrong-type start
            // tree): status refuses it, clearly, as every command does.
            return;
        }
        if out.code != Some(0) {
            self.violate("operable", "osctl --json status", out.text());
            return;
        }
        let Ok(doc) = serde_json::from_str::<serde_json::Value>(&out.stdout) else {
            self.violate(
                "operable",
                "osctl --json status",
                format!("not one JSON document\n{}", out.text()),
            );
            return;
        };
        self.model.active = doc["active"]["runtime"].as_str().map(str::to_string);
        let mcp = self.model.mcp.clone();
        for (rt, names) in &mcp {
            let Some(entry) = doc["runtimes"]
                .as_array()
                .and_then(|a| a.iter().find(|r| r["name"] == rt.as_str()))
            else {
                continue;
            };
            let listed: BTreeSet<String> = entry["mcp_servers"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let lost: Vec<&String> = names.iter().filter(|n| !listed.contains(*n)).collect();
            if !lost.is_empty() {
                self.violate(
                    "model",
                    &format!("{rt}'s MCP servers"),
                    format!(
                        "added with `osctl mcp add` and never removed, but {rt} no longer lists {lost:?} (it lists {listed:?}; error {})",
                        entry["mcp_error"]
                    ),
                );
                let keep: BTreeSet<String> = names.intersection(&listed).cloned().collect();
                self.model.mcp.insert(rt.clone(), keep);
            }
        }
    }

    /// Operability: every read-only command and preview works in this state.
    pub(super) fn operability(&mut self, drawn: usize) {
        let before = self.dev.snapshot();
        self.status_probe();
        let mut probes: Vec<(Vec<String>, &[i32])> = vec![
            (s(&["--check", "presync"]), &[0, 3]),
            (s(&["mcp", "list"]), &[0]),
            (s(&["channel", "list"]), &[0]),
            (s(&["skills", "list"]), &[0]),
            (s(&["--dry-run", "reconcile"]), &[0]),
        ];
        for rt in RUNTIMES {
            probes.push((s(&["--dry-run", "switch", rt, "--settle", "0"]), &[0]));
        }
        let chosen: Vec<usize> = if drawn >= probes.len() {
            (0..probes.len()).collect()
        } else {
            let mut c: Vec<usize> = (0..drawn)
                .map(|_| self.rng.below(probes.len() as u64) as usize)
                .collect();
            c.sort();
            c.dedup();
            c
        };
        for i in chosen {
            let (args, ok) = &probes[i];
            self.stats.probes += 1;
            let out = self.run(args);
            let ctx = format!("osctl {}", args.join(" "));
            match out.code {
                Some(c) if ok.contains(&c) => {}
                Some(1) => {
                    if let Some(bad) = unclear(&out.stderr) {
                        self.violate(
                            "operable",
                            &ctx,
                            format!("refused unclearly ({bad})\n{}", out.text()),
                        );
                    }
                }
                _ if out.timed_out || out.code == Some(101) => {}
                _ => self.violate("operable", &ctx, out.text()),
            }
        }
        let after = self.dev.snapshot();
        if after != before {
            self.violate(
                "operable",
                "read-only commands and previews",
                format!(
                    "they changed the device\n  {}",
                    rs::describe_diff(&before, &after)
                ),
            );
        }
    }
}
