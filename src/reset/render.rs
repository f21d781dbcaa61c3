//! The reset plan as a list a person can check before saying yes: every path with what it
//! holds (files and bytes), every service action and command, and the totals. The confirmation
//! prompt and `reset --dry-run` show this same list (`-v` adds the full diff).

use crate::path::DevPath;
use crate::plan::render::human_bytes;
use crate::plan::{ChangeKind, FileState, Plan, Step};
use crate::redact::redact;

/// Files and bytes a plan deletes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Totals {
    pub paths: u64,
    pub files: u64,
    pub bytes: u64,
}

pub(crate) fn totals(plan: &Plan) -> Totals {
    let mut t = Totals::default();
    for c in plan.file_changes() {
        if c.kind() == ChangeKind::Delete {
            t.paths += 1;
            let (files, bytes) = held(&c.before);
            t.files += files;
            t.bytes += bytes;
        }
    }
    t
}

fn held(state: &FileState) -> (u64, u64) {
    match state {
        FileState::Tree { files, bytes } => (*files, *bytes),
        FileState::File { content, .. } => (1, content.len() as u64),
        _ => (0, 0),
    }
}

fn files_bytes(files: u64, bytes: u64) -> String {
    format!(
        "{files} file{}, {}",
        if files == 1 { "" } else { "s" },
        human_bytes(bytes)
    )
}

/// The list: one line per step, in the order they run, then the totals. `live`: whether
/// commands will really run (on any other root they are printed and skipped).
/// `reboot`: the reset ends with `systemctl reboot`, after its journal is committed.
/// `cleared`: per native file, the previous owner's values the plan takes out of it, each
/// listed under the file's line.
pub(crate) fn listing(
    plan: &Plan,
    cleared: &[(DevPath, Vec<String>)],
    live: bool,
    reboot: bool,
) -> String {
    let mut out = String::new();
    for step in &plan.steps {
        let line = match step {
            Step::Service(a) => format!("  run     {}", a.describe()),
            Step::Command(c) => format!(
                "  run     {}  ({}{})",
                c.argv.join(" "),
                c.label,
                if live {
                    ""
                } else {
                    "; only on the live device"
                }
            ),
            Step::File(c) => {
                let path = c.path.to_string();
                match (&c.before, &c.after) {
                    (FileState::Tree { files, bytes }, FileState::Absent) => {
                        format!("  delete  {path}/  ({})", files_bytes(*files, *bytes))
                    }
                    (FileState::File { content, .. }, FileState::Absent) => {
                        format!(
                            "  delete  {path}  ({})",
                            files_bytes(1, content.len() as u64)
                        )
                    }
                    (FileState::Symlink { target }, FileState::Absent) => {
                        format!("  delete  {path}  (symbolic link to {target}; its target is kept)")
                    }
                    (FileState::Dir { .. }, FileState::Absent) => {
                        format!("  delete  {path}/  (empty folder)")
                    }
                    (_, FileState::Dir { .. }) => format!("  create  {path}/  (empty folder)"),
                    _ => match cleared.iter().find(|(p, _)| *p == c.path) {
                        Some((_, items)) => {
                            let mut line = format!(
                                "  edit    {path}  (clear the previous owner's values: {})",
                                items.len()
                            );
                            for item in items {
                                line.push_str(&format!("\n            {item}"));
                            }
                            line
                        }
                        None => format!("  edit    {path}  ({})", c.reason),
                    },
                }
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    if reboot {
        out.push_str("  run     systemctl reboot  (once the reset is done)\n");
    }
    let t = totals(plan);
    out.push_str(&format!(
        "{} path{} to delete ({})\n",
        t.paths,
        if t.paths == 1 { "" } else { "s" },
        files_bytes(t.files, t.bytes)
    ));
    redact(&out).into_owned()
}
