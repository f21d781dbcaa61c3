//! The package check of `osctl skills sync` (seed 002: no secrets) against a loopback CDN (see
//! `skills_support`): each secret issue 26 found installed is refused, naming the gitleaks-style
//! rule id, the file and its line, never quoting the secret; the near misses install.

use crate::skills_support::{Cdn, Device, Reply, json_of, skill_zip, stderr, version_of};

const LAMP: &[&str] = &["audio", "light"];

fn sync(dev: &Device) -> std::process::Output {
    dev.osctl(&["--json", "skills", "sync", "--timeout", "5"])
}

fn audio(doc: &serde_json::Value) -> serde_json::Value {
    doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "audio")
        .cloned()
        .unwrap()
}

/// A device that installed audio once, and its CDN.
fn device() -> (Cdn, Device) {
    let mut cdn = Cdn::new(false);
    cdn.publish("audio", &[("SKILL.md", b"# Audio\nPlay sounds.\n")]);
    // The hooks the embedded catalog expects for openclaw.
    for hook in ["turn-gate", "emotion-acknowledge"] {
        cdn.hook(hook, "# hook\n", "export default () => {};\n");
    }
    let dev = Device::new(&cdn.server, LAMP, None);
    let out = sync(&dev);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (cdn, dev)
}

#[test]
fn each_secret_is_refused_naming_its_rule() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "scripts/stripe.py",
            "\nWEBHOOK = 'whsec_5d3f9a1c7e2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f'\n",
            "whsec_5d3f9a1c7e2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f",
            "stripe-webhook-secret",
        ),
        (
            "scripts/notify.sh",
            "\ncurl -d @- https://hooks.slack.com/services/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\n",
            "q7Rb4Tc1Yd8We5Vf2Zx9kLm2",
            "slack-webhook-url",
        ),
        (
            "bot.js",
            "\nclient.login('MTA4NzY1NDMyMTA5ODc2NTQzMg.GhX2aB.k3Jd9fLq8wZpR2tYvN5mC7xB1sQ4eU6oI0aHgT');\n",
            "k3Jd9fLq8wZpR2tYvN5mC7xB1sQ4eU6oI0aHgT",
            "discord-api-token",
        ),
        (
            "SKILL.md",
            "# Audio\nConnect with password=Hunt3r2xK9q to the mixer.\n",
            "Hunt3r2xK9q",
            "password-assignment",
        ),
        (
            "scripts/db.py",
            "\nDB = 'postgres://admin:S3cretPass99@db.internal:5432/app'\n",
            "S3cretPass99",
            "url-userinfo-password",
        ),
        (
            "SKILL.md",
            "# Audio\nClone https://deploy:Tr0ub4dor3x@git.acme.io/repo.git first.\n",
            "Tr0ub4dor3x",
            "url-userinfo-password",
        ),
    ];
    let (mut cdn, dev) = device();
    let skill = "root/.openclaw/workspace/skills/audio/SKILL.md";
    let installed = dev.read(skill).unwrap();
    for (path, text, secret, rule) in cases {
        let mut files: Vec<(&str, &[u8])> = vec![(path, text.as_bytes())];
        if *path != "SKILL.md" {
            files.push(("SKILL.md", b"# Audio\n"));
        }
        let zip = skill_zip(&files);
        let version = version_of(&zip);
        cdn.publish_reply("audio", Reply::Ok(zip), &version);
        let out = sync(&dev);
        let what = format!("{rule} in {path}");
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        let a = audio(&json_of(&out));
        assert_eq!(a["action"], "failed", "{what}: {a}");
        assert_eq!(a["error"]["code"], "package_secret", "{what}: {a}");
        let shown = a.to_string();
        assert!(
            shown.contains(&format!("(rule {rule})")),
            "{what}: the rule is not named: {a}"
        );
        assert!(shown.contains(path), "{what}: the file is not named: {a}");
        assert!(
            shown.contains(" line 2 "),
            "{what}: the line is not named: {a}"
        );
        assert!(!shown.contains(secret), "{what}: the secret is quoted: {a}");
        assert!(
            !stderr(&out).contains(secret),
            "{what}: the secret is shown"
        );
        assert_eq!(dev.read(skill).unwrap(), installed, "{what}: skill changed");
    }
}

#[test]
fn near_misses_install() {
    let text = "# Audio\n\
        Set STRIPE_WEBHOOK_SECRET to your whsec_... signing secret.\n\
        Paste your https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX URL.\n\
        The bot token (Developer Portal > Bot > Reset Token) goes in DISCORD_TOKEN.\n\
        Pass password=<your password> or password=${DB_PASSWORD}; the password= option takes it.\n\
        Documented as https://user:pass@example.com/path or postgres://USER:PASSWORD@HOST:5432/DB.\n\
        Or https://${USER}:${TOKEN}@git.acme.io/repo.git.\n";
    let (mut cdn, dev) = device();
    let zip = skill_zip(&[("SKILL.md", text.as_bytes())]);
    let version = version_of(&zip);
    cdn.publish_reply("audio", Reply::Ok(zip), &version);
    let out = sync(&dev);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        dev.read("root/.openclaw/workspace/skills/audio/SKILL.md")
            .as_deref(),
        Some(text)
    );
}
