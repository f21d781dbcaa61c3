//! Rendering a plan: a unified diff with git-style headers relative to the device root, and a
//! JSON form. Secrets are masked here, line by line, before anything leaves this module (the
//! printer masks known values once more as a second net).

use serde_json::{Value, json};

use super::{ChangeKind, FileChange, FileState, Plan, Step};
use crate::format::linediff;
use crate::redact::redact;

/// The whole plan as text: one diff per file change, one `# …` line per action, in order.
pub fn diff(plan: &Plan) -> String {
    let mut out = String::new();
    for step in &plan.steps {
        match step {
            Step::File(change) => out.push_str(&file_diff(change)),
            Step::Service(action) => {
                out.push_str(&format!("# {}\n", action.describe()));
            }
            Step::Command(cmd) => {
                out.push_str(&format!(
                    "# run {} ({}; timeout {} s{})\n",
                    cmd.argv.join(" "),
                    cmd.label,
                    cmd.timeout_secs,
                    if cmd.optional {
                        ", failure is a warning"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    redact(&out).into_owned()
}

/// `--stat`: one line per path with its added and removed line counts (`path | +3 -1`), one
/// `# …` line per action, then the summary.
pub fn stat(plan: &Plan) -> String {
    let mut rows: Vec<(String, usize, usize)> = Vec::new();
    let mut actions = String::new();
    for step in &plan.steps {
        match step {
            Step::File(change) => {
                let (added, removed) = line_counts(&file_diff(change));
                rows.push((change.path.relative().display().to_string(), added, removed));
            }
            Step::Service(action) => actions.push_str(&format!("# {}\n", action.describe())),
            Step::Command(cmd) => actions.push_str(&format!("# run {}\n", cmd.argv.join(" "))),
        }
    }
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (path, added, removed) in rows {
        out.push_str(&format!(" {path:<width$} | +{added} -{removed}\n"));
    }
    out.push_str(&actions);
    out.push_str(&format!(" {}\n", summary(plan)));
    redact(&out).into_owned()
}

/// Added and removed lines of a diff (its `+++`/`---` headers left out).
fn line_counts(diff: &str) -> (usize, usize) {
    let mut counts = (0, 0);
    for line in diff.lines() {
        if line.starts_with("+++") || line.starts_with("---") {
            continue;
        }
        if line.starts_with('+') {
            counts.0 += 1;
        } else if line.starts_with('-') {
            counts.1 += 1;
        }
    }
    counts
}

/// A rendered diff with colour, line by line: added lines green, removed red, hunk headers
/// cyan, file headers and action lines bold. Only for a stdout whose colour is on.
pub fn paint_diff(diff: &str) -> String {
    use anstyle::{AnsiColor, Style};
    let added = Style::new().fg_color(Some(AnsiColor::Green.into()));
    let removed = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let hunk = Style::new().fg_color(Some(AnsiColor::Cyan.into()));
    let header = Style::new().bold();
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    for line in diff.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let style = if body.starts_with("diff --git")
            || body.starts_with("+++")
            || body.starts_with("---")
            || body.starts_with('#')
        {
            Some(header)
        } else if body.starts_with("@@") {
            Some(hunk)
        } else if body.starts_with('+') {
            Some(added)
        } else if body.starts_with('-') {
            Some(removed)
        } else {
            None
        };
        match style {
            Some(s) if !body.is_empty() => {
                out.push_str(&format!("{}{body}{}{end}", s.render(), s.render_reset()))
            }
            _ => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod paint_tests {
    use super::*;

    #[test]
    fn a_diff_is_coloured_line_by_line_and_keeps_its_text() {
        let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n";
        let painted = paint_diff(diff);
        assert!(painted.contains("\x1b[32m+new\x1b[0m"), "{painted:?}");
        assert!(painted.contains("\x1b[31m-old\x1b[0m"), "{painted:?}");
        assert!(
            painted.contains("\x1b[36m@@ -1 +1 @@\x1b[0m"),
            "{painted:?}"
        );
        assert!(painted.contains("\n same\n"), "{painted:?}");
        let plain: String = painted
            .replace("\x1b[32m", "")
            .replace("\x1b[31m", "")
            .replace("\x1b[36m", "")
            .replace("\x1b[1m", "")
            .replace("\x1b[0m", "");
        assert_eq!(plain, diff);
    }

    #[test]
    fn line_counts_leave_the_file_headers_out() {
        assert_eq!(
            line_counts("--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n-a\n+b\n+c\n d\n"),
            (2, 1)
        );
    }
}

/// A git-style diff of one change (already redacted).
pub fn file_diff(change: &FileChange) -> String {
    let rel = change.path.relative().display().to_string();
    let a = format!("a/{rel}");
    let b = format!("b/{rel}");
    let mut out = format!("diff --git {a} {b}\n");
    match (&change.before, &change.after) {
        (FileState::Tree { files, bytes }, FileState::Absent) => {
            out.push_str(&format!(
                "deleted folder {rel}/ ({files} file{}, {})\n",
                if *files == 1 { "" } else { "s" },
                human_bytes(*bytes)
            ));
        }
        (FileState::Symlink { target }, FileState::Absent) => {
            out.push_str(&format!("deleted symlink {rel} -> {target}\n"));
        }
        (_, FileState::Symlink { target }) => {
            out.push_str(&format!("new symlink {rel} -> {target}\n"));
        }
        (FileState::Dir { .. }, FileState::Absent) => {
            out.push_str(&format!("deleted empty folder {rel}/\n"));
        }
        (_, FileState::Dir { mode }) => {
            out.push_str(&format!("new folder {rel}/ (mode {mode:04o})\n"));
        }
        (before, after) => {
            let old_mode = before.mode();
            let new_mode = after.mode();
            match (old_mode, new_mode) {
                (None, Some(m)) => out.push_str(&format!("new file mode 100{m:03o}\n")),
                (Some(m), None) => out.push_str(&format!("deleted file mode 100{m:03o}\n")),
                (Some(o), Some(n)) if o != n => {
                    out.push_str(&format!("old mode 100{o:03o}\nnew mode 100{n:03o}\n"))
                }
                _ => {}
            }
            let old = before.content().unwrap_or(&[]);
            let new = after.content().unwrap_or(&[]);
            if old == new {
                return redact(&out).into_owned();
            }
            let (old_s, new_s) = match (std::str::from_utf8(old), std::str::from_utf8(new)) {
                (Ok(o), Ok(n)) if !o.contains('\0') && !n.contains('\0') => (o, n),
                _ => {
                    out.push_str(&format!("Binary files {a} and {b} differ\n"));
                    return out;
                }
            };
            let from = if before.content().is_some() {
                a.as_str()
            } else {
                "/dev/null"
            };
            let to = if after.content().is_some() {
                b.as_str()
            } else {
                "/dev/null"
            };
            out.push_str(&linediff::unified(old_s, new_s, from, to));
        }
    }
    redact(&out).into_owned()
}

/// The plan as JSON: `{"steps": [...], "summary": {...}, "warnings": [...]}`.
pub fn json(plan: &Plan) -> Value {
    let steps: Vec<Value> = plan
        .steps
        .iter()
        .map(|step| match step {
            Step::File(c) => json!({
                "type": "file",
                "path": c.path,
                "change": c.kind().as_str(),
                "mode": c.after.mode().map(|m| format!("{m:04o}")),
                "reason": c.reason,
                "diff": file_diff(c),
            }),
            Step::Service(a) => {
                let mut v = serde_json::to_value(a).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert("type".into(), "service".into());
                    m.insert("command".into(), a.describe().into());
                }
                v
            }
            Step::Command(cmd) => json!({
                "type": "command",
                "label": cmd.label,
                "argv": cmd.argv,
                "timeout_secs": cmd.timeout_secs,
                "optional": cmd.optional,
            }),
        })
        .collect();
    json!({
        "steps": steps,
        "summary": summary_json(plan),
        "warnings": plan.warnings,
    })
}

fn summary_json(plan: &Plan) -> Value {
    let count = |k: ChangeKind| plan.file_changes().filter(|c| c.kind() == k).count();
    let services = plan
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Service(_)))
        .count();
    let commands = plan
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Command(_)))
        .count();
    json!({
        "files": plan.file_changes().count(),
        "created": count(ChangeKind::Create),
        "modified": count(ChangeKind::Modify) + count(ChangeKind::Chmod),
        "deleted": count(ChangeKind::Delete),
        "folders": count(ChangeKind::Mkdir),
        "service_actions": services,
        "commands": commands,
    })
}

/// One line for stderr: `3 files (1 created, 2 modified), 1 service action`.
pub fn summary(plan: &Plan) -> String {
    let s = summary_json(plan);
    let n = |k: &str| s[k].as_u64().unwrap_or(0);
    let mut parts = Vec::new();
    for k in ["created", "modified", "deleted", "folders"] {
        if n(k) > 0 {
            parts.push(format!(
                "{} {}",
                n(k),
                if k == "folders" { "folders created" } else { k }
            ));
        }
    }
    let files = n("files");
    let mut out = format!("{files} path{}", if files == 1 { "" } else { "s" });
    if !parts.is_empty() {
        out.push_str(&format!(" ({})", parts.join(", ")));
    }
    let services = n("service_actions");
    if services > 0 {
        out.push_str(&format!(
            ", {services} service action{}",
            if services == 1 { "" } else { "s" }
        ));
    }
    let commands = n("commands");
    if commands > 0 {
        out.push_str(&format!(
            ", {commands} command{}",
            if commands == 1 { "" } else { "s" }
        ));
    }
    out
}

pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;
    use crate::path::DevPath;
    use crate::plan::ServiceAction;

    #[test]
    fn git_style_headers_and_redaction() {
        let mut plan = Plan::new();
        plan.file(FileChange::write(
            DevPath::new("/root/.hermes/.env"),
            FileState::file(
                b"A=1\nAUTONOMOUS_API_KEY=old-secret-value\n".to_vec(),
                0o644,
            ),
            b"A=1\nAUTONOMOUS_API_KEY=new-secret-value\n".to_vec(),
            0o600,
            "LLM key",
        ));
        plan.service(ServiceAction::RestartIfActive("hermes-gateway".into()));
        let text = diff(&plan);
        assert!(text.starts_with("diff --git a/root/.hermes/.env b/root/.hermes/.env\nold mode 100644\nnew mode 100600\n--- a/root/.hermes/.env\n+++ b/root/.hermes/.env\n"), "{text}");
        assert!(
            text.contains("-AUTONOMOUS_API_KEY=old…alue\n+AUTONOMOUS_API_KEY=new…alue\n"),
            "{text}"
        );
        assert!(!text.contains("old-secret-value"));
        assert!(text.ends_with("# systemctl try-restart hermes-gateway.service\n"));
        assert_eq!(summary(&plan), "1 path (1 modified), 1 service action");
    }

    #[test]
    fn new_and_deleted_files() {
        let mut plan = Plan::new();
        plan.file(FileChange::write(
            DevPath::new("/a"),
            FileState::Absent,
            b"x\n".to_vec(),
            0o644,
            "",
        ));
        plan.file(FileChange::new(
            DevPath::new("/b"),
            FileState::file(b"y".to_vec(), 0o600),
            FileState::Absent,
            "",
        ));
        let text = diff(&plan);
        assert!(
            text.contains("new file mode 100644\n--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+x\n"),
            "{text}"
        );
        assert!(
            text.contains("deleted file mode 100600\n--- a/b\n+++ /dev/null\n"),
            "{text}"
        );
    }
}
