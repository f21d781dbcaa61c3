//! The openclaw persona layout, shared by openclaw, picoclaw, codex, claudecode and opencode:
//! one reader and one writer driven by the runtime's `persona` slots (`src/runtime/<rt>/mod.rs`).
//!
//! SOUL.md, IDENTITY.md, MEMORY.md, USER.md and KNOWLEDGE.md each have a slot, and daily memory
//! lives in `memory/*.md` (picoclaw keeps MEMORY.md in that folder too; it is not a daily file).
//! Daily entries fold into MEMORY.md: date-stamped files cannot be rebuilt from entries, so the
//! fold is one-way on every destination.

use super::Source;
use super::bundle::{PersonaBundle, Sources};
use super::identity;
use super::migrator::Migrator;
use crate::error::{Error, Result};

/// Reads the layout into a bundle.
pub(crate) fn read(src: &Source<'_, '_>) -> Result<PersonaBundle> {
    let p = &src.rt.persona;
    let (soul, soul_from) = src.text(p.soul)?;
    let (identity, identity_from) = match p.identity {
        Some(loc) => {
            let (text, from) = src.text(loc)?;
            (identity::parse_identity_lines(&text), from)
        }
        None => (Vec::new(), None),
    };
    let (memory, memory_from) = src.entries(Some(p.memory))?;
    let (knowledge, knowledge_from) = src.entries(p.knowledge)?;
    let (user, user_from) = src.entries(Some(p.user))?;
    let (daily, daily_dir) = src.daily_files()?;
    Ok(PersonaBundle {
        soul,
        identity,
        memory,
        user,
        knowledge,
        daily,
        sources: Sources {
            soul: soul_from,
            identity: identity_from,
            memory: memory_from,
            user: user_from,
            knowledge: knowledge_from,
            daily_dir,
        },
    })
}

/// Writes a bundle into the layout: soul (identity card stripped), identity restored into
/// IDENTITY.md, memory + daily into MEMORY.md, knowledge into KNOWLEDGE.md (when there is any),
/// and the user profile.
pub(crate) fn write(m: &mut Migrator<'_, '_>, b: &PersonaBundle) -> Result<()> {
    let p = m.rt.persona;
    let (Some(identity_loc), Some(knowledge_loc)) = (p.identity, p.knowledge) else {
        return Err(Error::internal(format!(
            "{} has no IDENTITY.md or KNOWLEDGE.md slot; it needs its own persona writer",
            m.rt.name
        )));
    };
    let s = &b.sources;

    let soul = m.path(p.soul);
    m.write_soul(s.soul.as_ref(), &identity::strip_card(&b.soul), &soul)?;

    let dest = m.path(identity_loc);
    m.restore_identity(s.identity.as_ref(), &b.identity, &dest)?;

    let limit = m.opts.memory_limit;
    let dest = m.path(p.memory);
    let mut merger = m.merger(&dest, limit)?;
    m.offer_entries(s.memory.as_ref(), &b.memory, &mut merger);
    m.offer_daily(&b.daily, &mut merger)?;
    let source = Sources::describe(&[s.memory.as_ref()], s.daily_dir.as_ref());
    m.finish_memory("memory", source, &dest, merger, limit)?;

    if !b.knowledge.is_empty() {
        let dest = m.path(knowledge_loc);
        let mut merger = m.merger(&dest, limit)?;
        m.offer_entries(s.knowledge.as_ref(), &b.knowledge, &mut merger);
        let source = s.knowledge.as_ref().map(ToString::to_string);
        m.finish_memory("knowledge", source, &dest, merger, limit)?;
    }

    let dest = m.path(p.user);
    m.write_user_profile(s.user.as_ref(), &b.user, &dest)
}
