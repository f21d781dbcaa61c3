//! The skill update prompt (docs/device-contract.md §7.2, upstream `SkillUpdatePrompt`), word
//! for word.
//!
//! osctl cannot send a chat message to the live agent itself (docs/device-contract.md §10 item 7):
//! the text goes into `skills sync --json` and, with `--notify-cmd`, to that command's standard
//! input.

/// The fixed first line of the prompt.
pub(crate) const HEADER: &str = "[system] The following skills have been updated. Re-read them now — files on disk have changed. Follow the updated instructions strictly. After re-reading, output exactly NO_REPLY and nothing else; do not announce or acknowledge this maintenance update to the user.";

/// The origin marker upstream appends (`domain.ViaMarker(domain.ViaSystem)`).
pub(crate) const VIA_SYSTEM: &str = "[via:system]";

/// The prompt for `changed` skills under the agent-visible `skills_dir`; `None` when nothing
/// changed (upstream sends nothing then).
pub(crate) fn update_prompt(skills_dir: &str, changed: &[String]) -> Option<String> {
    if changed.is_empty() {
        return None;
    }
    let mut text = HEADER.to_string();
    for name in changed {
        text.push_str(&format!("\n- {skills_dir}/{name}/SKILL.md"));
    }
    text.push('\n');
    text.push_str(VIA_SYSTEM);
    Some(text)
}

/// How long a `--notify-cmd` may run.
pub(crate) const NOTIFY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs `cmd` (a shell command line) with `prompt` on its standard input. The runtime and the
/// changed skills are also in `OSCTL_SKILLS_RUNTIME` and `OSCTL_SKILLS_UPDATED` (space-separated).
pub(crate) fn notify(
    cmd: &str,
    prompt: &str,
    runtime: crate::runtime::RuntimeId,
    updated: &[String],
) -> crate::error::Result<()> {
    use crate::system::process::{Run, run};
    let argv = ["/bin/sh".to_string(), "-c".to_string(), cmd.to_string()];
    let env = [
        ("OSCTL_SKILLS_RUNTIME".to_string(), runtime.to_string()),
        ("OSCTL_SKILLS_UPDATED".to_string(), updated.join(" ")),
    ];
    let mut spec = Run::new(&argv, NOTIFY_TIMEOUT);
    spec.env = &env;
    spec.stdin = Some(prompt.as_bytes());
    let out = run(&spec)?;
    if out.success() {
        return Ok(());
    }
    Err(crate::error::Error::input(
        "notify_failed",
        format!("the --notify-cmd failed ({})", out.describe()),
    )
    .cause(out.stderr_text().trim().to_string())
    .hint("the skills were installed and recorded; the agent was not told, so tell it or re-run the command"))
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // tests set up files directly
mod tests {
    use super::*;

    #[test]
    fn matches_upstream_wording() {
        assert_eq!(update_prompt("skills", &[]), None);
        let p =
            update_prompt("skills/openclaw-imports", &["audio".into(), "dance".into()]).unwrap();
        assert_eq!(
            p,
            "[system] The following skills have been updated. Re-read them now — files on disk have changed. Follow the updated instructions strictly. After re-reading, output exactly NO_REPLY and nothing else; do not announce or acknowledge this maintenance update to the user.\n- skills/openclaw-imports/audio/SKILL.md\n- skills/openclaw-imports/dance/SKILL.md\n[via:system]"
        );
    }
}
