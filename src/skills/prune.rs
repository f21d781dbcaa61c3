//! Which skill folders a sync removes (docs/device-contract.md §7.3), per the runtime's
//! [`PruneRule`].
//!
//! - [`PruneRule::CatalogOnly`] (openclaw, hermes, codex, claudecode, opencode): only skills osctl
//!   manages (catalog skills, and skills it installed itself from the CDN) that the device does
//!   not support. An unknown folder (a skill the owner or the agent wrote) is never touched, and
//!   hermes' `skills/authored` is outside the folder osctl manages altogether.
//! - [`PruneRule::AllButBuiltins`] (picoclaw): every folder that is neither supported nor one of
//!   the runtime's built-ins, as upstream's picoclaw onboarding does; with no capabilities
//!   declared nothing is pruned (fail-open, as upstream).
//!
//! Hidden entries (osctl's own staging folder among them) and plain files are never pruned.

use crate::runtime::PruneRule;

/// What the prune decision needs to know about a folder name.
pub(crate) struct Facts<'a> {
    pub rule: PruneRule,
    pub builtins: &'a [&'a str],
    /// The device declared no capabilities (everything is supported).
    pub fail_open: bool,
    /// Whether the device supports this skill (catalog gate, or its own skill.json).
    pub supported: &'a dyn Fn(&str) -> bool,
    /// Whether osctl manages this name (a catalog skill, or one it installed).
    pub managed: &'a dyn Fn(&str) -> bool,
    /// Whether the CDN (or osctl's record) knows the skill at all.
    pub known: &'a dyn Fn(&str) -> bool,
}

/// The folder names to remove, from the `present` folders of a skills folder.
pub(crate) fn to_prune(present: &[String], facts: &Facts<'_>) -> Vec<String> {
    present
        .iter()
        .filter(|name| !name.starts_with('.'))
        .filter(|name| match facts.rule {
            PruneRule::CatalogOnly => (facts.managed)(name) && !(facts.supported)(name),
            PruneRule::AllButBuiltins => {
                let keep = facts.fail_open
                    || facts.builtins.contains(&name.as_str())
                    || ((facts.known)(name) && (facts.supported)(name));
                !keep
            }
        })
        .cloned()
        .collect()
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn catalog_only_keeps_unknown_and_authored_folders() {
        let supported = |n: &str| n != "camera";
        let managed = |n: &str| ["camera", "audio"].contains(&n);
        let known = managed;
        let facts = Facts {
            rule: PruneRule::CatalogOnly,
            builtins: &[],
            fail_open: false,
            supported: &supported,
            managed: &managed,
            known: &known,
        };
        let present = names(&["audio", "camera", "my-own-skill", ".osctl-staging"]);
        assert_eq!(to_prune(&present, &facts), names(&["camera"]));
    }

    #[test]
    fn picoclaw_keeps_only_supported_and_builtins() {
        let supported = |n: &str| n != "camera";
        let known = |n: &str| ["camera", "audio"].contains(&n);
        let facts = Facts {
            rule: PruneRule::AllButBuiltins,
            builtins: &["weather", "tmux"],
            fail_open: false,
            supported: &supported,
            managed: &known,
            known: &known,
        };
        let present = names(&["audio", "camera", "my-own-skill", "tmux", "weather"]);
        assert_eq!(
            to_prune(&present, &facts),
            names(&["camera", "my-own-skill"])
        );
        let open = Facts {
            fail_open: true,
            ..facts
        };
        assert!(to_prune(&present, &open).is_empty());
    }
}
