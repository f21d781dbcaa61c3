//! The platform skill catalog and capability gating (docs/device-contract.md §7.3).
//!
//! Upstream generates its catalog (`system/skills/catalog_gen.go`) from `skills/<name>/skill.json`;
//! osctl embeds the same data as `embedded/skills-catalog.json` (its `provenance` field says which
//! upstream commit it was read from). Rules, as upstream:
//!
//! - A skill is supported when it needs no capability, or when the device declares **any one** of
//!   the capabilities it lists. A device with no capabilities at all gets everything (fail-open).
//! - A skill the catalog does not know needs no capability (fail-open), unless its own
//!   `skill.json` inside the zip says otherwise ([`SkillJson`]).
//! - A `disabled` skill is never installed and is pruned everywhere.
//! - Hooks follow the same rule with their own table (`emotion-acknowledge` needs `expression`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::Deserialize;

const CATALOG_JSON: &str = include_str!("../../embedded/skills-catalog.json");

#[derive(Debug, Deserialize)]
pub(crate) struct Catalog {
    /// Where the data comes from (shown by nothing; kept for readers of the file).
    #[allow(dead_code)]
    provenance: String,
    /// Skill name → capabilities it needs (any-of); empty: none.
    pub skills: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub disabled: BTreeSet<String>,
    /// Hook name → capabilities it needs.
    pub hooks: BTreeMap<String, Vec<String>>,
}

/// The embedded catalog.
pub(crate) fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        serde_json::from_str(CATALOG_JSON).expect("embedded/skills-catalog.json is valid")
    })
}

/// Whether a device with `caps` meets a requirement list (any-of; empty caps: fail-open).
pub(crate) fn meets(required: &[String], caps: &[String]) -> bool {
    caps.is_empty() || required.is_empty() || required.iter().any(|r| caps.contains(r))
}

impl Catalog {
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.skills.contains_key(name)
    }

    /// Whether the device may run `name` as far as the catalog knows (unknown skills: yes).
    pub(crate) fn supports(&self, name: &str, caps: &[String]) -> bool {
        if self.disabled.contains(name) {
            return false;
        }
        match self.skills.get(name) {
            Some(required) => meets(required, caps),
            None => true,
        }
    }

    /// The capabilities `name` needs (empty when none or unknown).
    pub(crate) fn requirements(&self, name: &str) -> &[String] {
        self.skills.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every hook, with whether the device supports it (upstream `skills.SupportedHooks`).
    pub(crate) fn hooks(&self, caps: &[String]) -> Vec<(&str, bool)> {
        self.hooks
            .iter()
            .map(|(n, req)| (n.as_str(), meets(req, caps)))
            .collect()
    }
}

/// A skill's own `skill.json` (`{"name", "capabilities": [...], "disabled": bool}`), as
/// upstream's catalog generator reads it.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SkillJson {
    #[serde(default)]
    pub capabilities: Option<Vec<String>>,
    #[serde(default)]
    pub disabled: bool,
}

impl SkillJson {
    /// `Some(reason)` when the skill's own file rules the device out.
    pub(crate) fn refuses(&self, caps: &[String]) -> Option<String> {
        if self.disabled {
            return Some("its skill.json marks it disabled".into());
        }
        match &self.capabilities {
            Some(req) if !meets(req, caps) => Some(format!(
                "its skill.json needs one of: {} (the device has: {})",
                req.join(", "),
                caps.join(", ")
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn caps(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_embedded_catalog_is_upstreams() {
        let c = catalog();
        assert_eq!(c.skills.len(), 44);
        assert_eq!(c.requirements("audio"), caps(&["audio"]));
        assert_eq!(c.requirements("camera"), caps(&["vision"]));
        assert_eq!(c.requirements("dance"), caps(&["motion", "audio"]));
        assert_eq!(c.requirements("emotion"), caps(&["expression"]));
        assert_eq!(c.requirements("guard"), caps(&["presence"]));
        let vocabulary = [
            "audio",
            "vision",
            "sensing",
            "presence",
            "motion",
            "policy",
            "light",
            "display",
            "expression",
            "lifelike",
            "media",
            "connectivity",
            "companion",
            "system",
        ];
        for req in c.skills.values().chain(c.hooks.values()) {
            for r in req {
                assert!(vocabulary.contains(&r.as_str()), "unknown capability {r}");
            }
        }
    }

    #[test]
    fn gating_is_any_of_and_fail_open() {
        let c = catalog();
        let all = c.skills.keys().filter(|n| c.supports(n, &[])).count();
        assert_eq!(all, 44, "no capabilities: everything");
        let lamp = caps(&["audio", "light"]);
        assert!(c.supports("dance", &lamp), "any one of motion/audio");
        assert!(!c.supports("camera", &lamp));
        assert!(c.supports("connectors", &lamp), "no requirement");
        assert!(c.supports("not-in-catalog", &lamp), "unknown: fail-open");
        let hooks = c.hooks(&lamp);
        assert_eq!(
            hooks,
            vec![("emotion-acknowledge", false), ("turn-gate", true)]
        );
        assert!(c.hooks(&caps(&["expression"])).iter().all(|(_, ok)| *ok));
    }

    #[test]
    fn a_skill_json_can_narrow_support() {
        let j: SkillJson =
            serde_json::from_str(r#"{"name":"x","capabilities":["vision"]}"#).unwrap();
        assert!(j.refuses(&caps(&["audio"])).is_some());
        assert!(j.refuses(&caps(&["vision"])).is_none());
        assert!(j.refuses(&[]).is_none(), "fail-open");
        let d: SkillJson = serde_json::from_str(r#"{"name":"x","disabled":true}"#).unwrap();
        assert!(d.refuses(&[]).is_some());
    }
}
