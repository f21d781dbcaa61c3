//! The runtimes' stock default souls: the SOUL.md texts a runtime (or the device OS) writes by
//! itself, which carry nothing of the owner. They are data (`embedded/souls/`, each file's
//! source in the README there), and they are how presync tells a "managed default" below the
//! OS block from what a person wrote (docs/device-contract.md §5.6).
//!
//! Upstream took any text that opens with `# Soul` or `# SOUL.md` (and, for hermes, a few more
//! openings) for a default and deleted it, so an owner's `# Soul` / "You are Lumi, a friendly
//! lamp." went at the next boot, without a backup, and so did a persona migrated into hermes.
//! Here a text is a default only when it *is* one, line for line after whitespace
//! normalisation: a stock soul as shipped, the same rebranded for the runtime it sits in (a
//! migration rebrands what it carries), or a copy of the device's own soul (what onboarding wrote
//! into SOUL.md before it had a marker). A text that opens with a default and goes on keeps what
//! follows (the upstream case of a default with the owner's `## Personal` below it); a text that
//! differs anywhere in the default's lines is the owner's and is kept whole.

use super::rebrand::{patterns_to, rebrand};
use crate::runtime::RuntimeId;

/// One stock default soul.
#[derive(Clone, Copy, Debug)]
pub struct StockSoul {
    /// The data file's name (`openclaw-2026.9.6`), which says whose and which version.
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! stock {
    ($($name:literal),* $(,)?) => {
        [$(StockSoul {
            name: $name,
            text: include_str!(concat!("../../embedded/souls/", $name, ".md")),
        }),*]
    };
}

/// Every stock soul osctl knows, whichever runtime seeds it: a migration carries one runtime's
/// default into another's SOUL.md (codex, claudecode and opencode get openclaw's from their
/// one-time migrate), so each is a default wherever it is found.
pub const STOCK_SOULS: [StockSoul; 14] = stock![
    "openclaw-2026.1.29",
    "openclaw-2026.2.9",
    "openclaw-2026.4.15",
    "openclaw-2026.4.29",
    "openclaw-2026.7.1",
    "openclaw-2026.9.6",
    "hermes-0.19.0",
    "hermes-be-direct",
    "hermes-deterministic-step",
    "hermes-legacy-persona",
    "hermes-legacy-persona-examples",
    "hermes-factory-reset",
    "picoclaw-onboard",
    "picoclaw-workspace",
];

/// A text's non-blank lines, each trimmed with its runs of whitespace made one space, with the
/// byte offset where each line ends (its line break included).
fn lines(text: &str) -> Vec<(String, usize)> {
    let text_start = text.len() - text.trim_start_matches('\u{feff}').len();
    let mut out = Vec::new();
    let mut at = text_start;
    for line in text[text_start..].split_inclusive('\n') {
        at += line.len();
        let norm = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if !norm.is_empty() {
            out.push((norm, at));
        }
    }
    out
}

fn is_heading(line: &str) -> bool {
    line.starts_with('#')
}

/// How `rest` opens with the default `stock`: `Some(end)`, the byte offset where the default's
/// last line ends, when the first non-blank lines of `rest` are the default's. A default that
/// is only a heading (hermes' factory-reset `# Hermes Agent Persona`) matches only a text that is
/// nothing else: text below a heading is someone's writing under it.
fn opens_with(rest: &[(String, usize)], stock: &str) -> Option<(usize, usize)> {
    let stock = lines(stock);
    if stock.is_empty() || stock.len() > rest.len() {
        return None;
    }
    if stock.iter().zip(rest).any(|((s, _), (r, _))| s != r) {
        return None;
    }
    if stock.iter().all(|(l, _)| is_heading(l)) && rest.len() != stock.len() {
        return None;
    }
    Some((stock.len(), rest[stock.len() - 1].1))
}

/// A managed default found at the top of a SOUL.md's owner part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Default<'t> {
    /// Which default (a stock soul's name, or `device soul`).
    pub name: &'static str,
    /// The default's text as it stands in the file.
    pub text: &'t str,
    /// What follows it: the owner's.
    pub rest: &'t str,
}

/// The managed default `rest` (SOUL.md below its OS block) opens with, if any: a stock soul, the
/// same rebranded for `rt`, or `device_soul`. The longest match wins (picoclaw's short onboard
/// soul is the opening of its workspace soul).
pub fn managed_default<'t>(
    rest: &'t str,
    rt: RuntimeId,
    device_soul: Option<&str>,
) -> Option<Default<'t>> {
    let have = lines(rest);
    if have.is_empty() {
        return None;
    }
    let from = patterns_to(rt.spec());
    let brand = rt.spec().brand;
    let mut best: Option<(usize, usize, &'static str)> = None;
    let mut consider = |name: &'static str, text: &str| {
        if let Some((n, end)) = opens_with(&have, text)
            && best.is_none_or(|(m, _, _)| n > m)
        {
            best = Some((n, end, name));
        }
    };
    for s in &STOCK_SOULS {
        consider(s.name, s.text);
        let rebranded = rebrand(s.text, from, brand);
        if rebranded != s.text {
            consider(s.name, &rebranded);
        }
    }
    if let Some(soul) = device_soul {
        consider("device soul", soul);
    }
    let (_, end, name) = best?;
    let start = rest.len() - rest.trim_start().len();
    Some(Default {
        name,
        text: &rest[start..end],
        rest: &rest[end..],
    })
}

/// Whether a soul's owner part (`rest`) is nothing but a managed default: there is no persona of
/// the owner's in it to carry or to keep.
pub fn is_only_default(rest: &str, rt: RuntimeId, device_soul: Option<&str>) -> bool {
    managed_default(rest, rt, device_soul).is_some_and(|d| d.rest.trim().is_empty())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    const OPENCLAW: &str = include_str!("../../embedded/souls/openclaw-2026.9.6.md");
    const HERMES: &str = include_str!("../../embedded/souls/hermes-0.19.0.md");

    #[test]
    fn every_stock_soul_is_a_default_everywhere() {
        for s in &STOCK_SOULS {
            assert!(!s.text.trim().is_empty(), "{}", s.name);
            for rt in RuntimeId::ALL {
                let d = managed_default(s.text, rt, None)
                    .unwrap_or_else(|| panic!("{} in {rt}", s.name));
                assert!(d.rest.trim().is_empty(), "{} in {rt}", s.name);
            }
        }
    }

    #[test]
    fn regression_owner_soul_taken_for_a_default() {
        // upstream's heading test took these for defaults and deleted them
        for owner in [
            "# Soul\n\nYou are Lumi, a friendly lamp.\n",
            "# SOUL.md\n\nYou are Lumi.\n",
            "You are Hermes Agent, built by Nous Research, and my name is Lumi.\n",
            "# Hermes Agent Persona\n\nYou are Lumi.\n",
        ] {
            for rt in RuntimeId::ALL {
                assert_eq!(managed_default(owner, rt, None), None, "{owner:?} in {rt}");
            }
        }
    }

    #[test]
    fn a_default_with_the_owners_text_below_keeps_the_owners() {
        let text = format!("\n{OPENCLAW}\n## Personal\n\nI like tea.\n");
        let d = managed_default(&text, RuntimeId::Openclaw, None).unwrap();
        assert_eq!(d.name, "openclaw-2026.9.6");
        assert_eq!(d.rest, "\n## Personal\n\nI like tea.\n");
        // whitespace does not matter, a changed word does
        let spaced = OPENCLAW.replace("\n\n", "\n  \n\n").replace(". ", ".   ");
        assert!(is_only_default(&spaced, RuntimeId::Codex, None));
        let edited = OPENCLAW.replace("Have opinions.", "Have strong opinions.");
        assert_eq!(managed_default(&edited, RuntimeId::Openclaw, None), None);
    }

    #[test]
    fn rebranded_and_device_defaults() {
        // hermes' default migrated into openclaw arrives rebranded
        let rebranded = HERMES.replace("Hermes", "OpenClaw");
        assert!(is_only_default(&rebranded, RuntimeId::Openclaw, None));
        assert!(!is_only_default(&rebranded, RuntimeId::Codex, None));
        let device = "You are a desk lamp.\n\nBe brief.";
        assert!(is_only_default(
            "You are a desk lamp.\nBe brief.\n",
            RuntimeId::Hermes,
            Some(device)
        ));
        assert!(!is_only_default(
            "You are a desk lamp.\n",
            RuntimeId::Hermes,
            Some(device)
        ));
        // a bare heading default only matches alone
        assert!(is_only_default(
            "# Hermes Agent Persona\n",
            RuntimeId::Hermes,
            None
        ));
        // the longest default wins
        let pico = include_str!("../../embedded/souls/picoclaw-workspace.md");
        assert_eq!(
            managed_default(pico, RuntimeId::Picoclaw, None)
                .unwrap()
                .name,
            "picoclaw-workspace"
        );
    }
}
