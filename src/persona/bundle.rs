//! The runtime-neutral persona: what one runtime's reader produces and any runtime's writer
//! consumes (docs/device-contract.md §5.1).

use super::identity::IdentityField;
use crate::path::DevPath;

/// The owner's persona and long-term memory, read from one runtime.
#[derive(Clone, Debug, Default)]
pub struct PersonaBundle {
    /// The persona body: identity card and hermes' legacy skill block stripped; the writer
    /// rebrands it.
    pub soul: String,
    /// The filled identity fields (IDENTITY.md, or the hermes identity card).
    pub identity: Vec<IdentityField>,
    /// Canonical entries of MEMORY.md and USER.md.
    pub memory: Vec<String>,
    pub user: Vec<String>,
    /// KNOWLEDGE.md entries (only runtimes with the slot).
    pub knowledge: Vec<String>,
    /// The daily memory files, newest first. They are read one at a time while the destination's
    /// memory is merged, so memory use stays bounded however many there are.
    pub daily: Vec<DevPath>,
    /// Where each part was read from (for the report).
    pub sources: Sources,
}

/// The files a bundle was read from; `None` where the file was absent.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    pub soul: Option<DevPath>,
    pub identity: Option<DevPath>,
    pub memory: Option<DevPath>,
    pub user: Option<DevPath>,
    pub knowledge: Option<DevPath>,
    /// The daily folder, when daily memory is included and the folder holds files.
    pub daily_dir: Option<DevPath>,
}

impl Sources {
    /// `a, b, dir/*.md`: the sources of a memory item that folds several slots.
    pub fn describe(parts: &[Option<&DevPath>], daily: Option<&DevPath>) -> Option<String> {
        let mut names: Vec<String> = parts.iter().flatten().map(|p| p.to_string()).collect();
        if let Some(d) = daily {
            names.push(format!("{d}/*.md"));
        }
        (!names.is_empty()).then(|| names.join(", "))
    }
}
