//! hermes' persona reader and writer (docs/device-contract.md §5.2).
//!
//! hermes has SOUL.md, `memories/MEMORY.md` and `memories/USER.md` and nothing else, with
//! entries separated by `§` lines. So the identity travels as a card inlined at the end of SOUL.md
//! (a move: reading hermes restores it into IDENTITY.md elsewhere), and KNOWLEDGE.md and the daily
//! files fold into MEMORY.md (a fold: one-way, there is no slot to split them back into). Its
//! legacy skill-priority block in SOUL.md is not persona and is dropped on read.

use crate::error::Result;
use crate::format::mdblock::{self, HERMES_SKILL_MARKER};
use crate::persona::bundle::{PersonaBundle, Sources};
use crate::persona::identity;
use crate::persona::migrator::Migrator;
use crate::persona::{Adapter, Source};

pub(super) const ADAPTER: Adapter = Adapter { read, write };

pub(super) fn read(src: &Source<'_, '_>) -> Result<PersonaBundle> {
    let p = &src.rt.persona;
    let (raw, soul_from) = src.text(p.soul)?;
    let identity = identity::card_fields(&raw);
    let soul = identity::strip_card(&strip_skill_block(&raw)).into_owned();
    let (memory, memory_from) = src.entries(Some(p.memory))?;
    let (user, user_from) = src.entries(Some(p.user))?;
    let identity_from = if identity.is_empty() {
        None
    } else {
        soul_from.clone()
    };
    Ok(PersonaBundle {
        soul,
        identity,
        memory,
        user,
        sources: Sources {
            soul: soul_from,
            identity: identity_from,
            memory: memory_from,
            user: user_from,
            ..Sources::default()
        },
        ..PersonaBundle::default()
    })
}

/// SOUL.md without the legacy `<!-- OS HERMES SKILL PRIORITY -->` … `---` block.
fn strip_skill_block(soul: &str) -> String {
    if !soul.contains(HERMES_SKILL_MARKER) {
        return soul.to_string();
    }
    let mut s = mdblock::strip_block(soul, HERMES_SKILL_MARKER)
        .trim_end_matches([' ', '\t', '\r', '\n'])
        .to_string();
    s.push('\n');
    s
}

/// Writes a bundle: the soul (as read: upstream strips no card here), the identity card inlined
/// into it, memory + knowledge + daily folded into MEMORY.md in that order (earlier entries win
/// the dedupe and the limit), and the user profile.
pub(super) fn write(m: &mut Migrator<'_, '_>, b: &PersonaBundle) -> Result<()> {
    let p = m.rt.persona;
    let s = &b.sources;
    let soul = m.path(p.soul);
    m.write_soul(s.soul.as_ref(), &b.soul, &soul)?;
    m.inline_identity(s.identity.as_ref(), &b.identity, &soul)?;

    let limit = m.opts.memory_limit;
    let dest = m.path(p.memory);
    let mut merger = m.merger(&dest, limit)?;
    m.offer_entries(s.memory.as_ref(), &b.memory, &mut merger);
    m.offer_entries(s.knowledge.as_ref(), &b.knowledge, &mut merger);
    m.offer_daily(&b.daily, &mut merger)?;
    let source = Sources::describe(
        &[s.memory.as_ref(), s.knowledge.as_ref()],
        s.daily_dir.as_ref(),
    );
    m.finish_memory("memory", source, &dest, merger, limit)?;

    let dest = m.path(p.user);
    m.write_user_profile(s.user.as_ref(), &b.user, &dest)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn the_legacy_skill_block_is_dropped_and_the_rest_kept() {
        let soul = "<!-- OS DO NOT REMOVE -->\n# Lamp persona\n---\n\n## Personal\n\nowner notes\n\n\
                    <!-- OS HERMES SKILL PRIORITY -->\n**Skill priority (MANDATORY):** device skills\n---\n";
        let out = strip_skill_block(soul);
        assert!(!out.contains("Skill priority"));
        assert!(out.contains("# Lamp persona") && out.contains("owner notes"));
        assert!(out.ends_with("owner notes\n"));
        assert_eq!(strip_skill_block("plain"), "plain");
    }
}
