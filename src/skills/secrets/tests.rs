//! Unit tests of the secret rules: what each rule must find, and the near misses it must pass.

use super::*;

fn rule(path: &str, text: &str) -> Option<&'static str> {
    find(path, text).map(|h| h.rule.id)
}

/// One line per rule (and shape) that must be found, with the rule that finds it.
#[test]
fn each_rule_finds_its_secret() {
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEgAqeGUxrcIlbjXfbcmwIDAQABAoIBAEvxb\n-----END RSA PRIVATE KEY-----\n";
    let cases: &[(&str, &str, &str)] = &[
        ("keys/deploy.pem", pem, "private-key"),
        (
            "sa.json",
            "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvuNMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZqgtzJ6GR3eqoYSW9b9UMvkBpZODSctWSNGj3P7jRFDO5VoTwCQAWbFnOjDfH5Ulgp2PKSQnSJP3AJLQNFNe7br1XbrhV//eO+t51mIpGSDCUv3E0DDFcWDTH9cXDTTlRZVEiR2BwpZOOkE/Z0/BVnhZYL71oZV34bKfWjQIt6V/isSMahdsAASACp4ZTGtwiVuNd9tybAgMBAAE=\\n-----END PRIVATE KEY-----\\n\"}",
            "private-key",
        ),
        ("notes.md", &format!("token: {jwt}"), "jwt"),
        (
            "call.sh",
            "curl -H 'Authorization: Bearer 4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c' x",
            "authorization-bearer",
        ),
        (
            "call.py",
            "headers = {'Authorization': 'Basic dXNlcjpodW50ZXIyMjI='}",
            "authorization-basic",
        ),
        (
            "notify.py",
            "URL = 'https://hooks.slack.com/services/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'",
            "slack-webhook-url",
        ),
        (
            "notify.py",
            "https://hooks.slack.com/triggers/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",
            "slack-webhook-url",
        ),
        (
            "notify.js",
            "const hook = \"https://discord.com/api/webhooks/1234567890123456789/aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3r\";",
            "discord-webhook-url",
        ),
        ("db.py", "password = \"hunter2!\"", "password-assignment"),
        (
            "config.json",
            "{\"db\": {\"adminPassword\": \"Tr0ub4dor&3\"}}",
            "password-assignment",
        ),
        (".env", "DB_PASSWORD=s3cr3tV4lue", "password-assignment"),
        ("app.yaml", "  password: Pa55word!", "password-assignment"),
        (
            "run.sh",
            "mysql --password=hunter22 db",
            "password-assignment",
        ),
        ("aws.txt", "AKIA2OGYBAH6STMMNXNN", "aws-access-token"),
        (
            "bot.js",
            "login('MTA4NzY1NDMyMTA5ODc2NTQzMg.GhX2aB.k3Jd9fLq8wZpR2tYvN5mC7xB1sQ4eU6oI0aHgT')",
            "discord-api-token",
        ),
        (
            "db.py",
            "DB = 'postgres://admin:S3cretPass99@db.internal:5432/app'",
            "url-userinfo-password",
        ),
        (
            "hooks.py",
            "WH = 'whsec_5d3f9a1c7e2b4d6f8a0c2e4b6d8f0a1c'",
            "stripe-webhook-secret",
        ),
        (
            "credentials",
            "aws_secret_access_key = 9f8E7d6C5b4A3z2Y1x0W9v8U7t6S5r4Q3p2O1n0M",
            "aws-secret-access-key",
        ),
        (
            "maps.js",
            "key=AIzaSyD4x9Kq2mN7pL3vR8tW1yZ5bC6dE0fG7hJ",
            "gcp-api-key",
        ),
        (
            "oauth.json",
            "\"client_secret\": \"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\"",
            "gcp-oauth-client-secret",
        ),
        (
            "sa.json",
            "\"private_key_id\": \"4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c9b8a7d6e\"",
            "gcp-service-account-key-id",
        ),
        (
            "ci.yml",
            "token: ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "github-pat",
        ),
        (
            "ci.yml",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
            "github-fine-grained-pat",
        ),
        ("ci.yml", "glpat-4f8a9c2e7b1d4a6f9e3c", "gitlab-pat"),
        ("a.py", "x = 'xoxb-1234-5678-abcdefghij'", "slack-token"),
        (
            "a.py",
            "x = 'xapp-1-A0123BCDE-1234567890-abc123'",
            "slack-token",
        ),
        (
            "bot.py",
            "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1 x",
            "telegram-bot-api-token",
        ),
        (
            "k.md",
            "key = \"sk-ant-api03-abcDEF1234567890abcdefXYZ\"",
            "anthropic-api-key",
        ),
        (
            "k.md",
            "sk-proj-4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c",
            "openai-api-key",
        ),
        (
            "k.md",
            "OPENAI=sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0ffee",
            "generic-sk-api-key",
        ),
        (
            "pay.js",
            "stripe('sk_live_4f8a9c2e7b1d4a6f9e3c8b2a')",
            "stripe-access-token",
        ),
        (
            ".npmrc",
            "//registry.npmjs.org/:_authToken=npm_4f8a9c2e7b1d4a6f9e3c8b2a7d5f1e0c9b8a",
            "npm-access-token",
        ),
    ];
    for (path, text, id) in cases {
        assert_eq!(rule(path, text), Some(*id), "{path}: {text}");
    }
    // Every rule has a case above.
    for r in RULES {
        assert!(cases.iter().any(|c| c.2 == r.id), "no case for {}", r.id);
    }
}

/// Near misses that must pass: placeholders, empty values, references, documentation.
#[test]
fn near_misses_pass() {
    for (path, text) in [
        (
            "SKILL.md",
            "Paste the key that starts with -----BEGIN OPENSSH PRIVATE KEY----- into the app.",
        ),
        (
            "SKILL.md",
            "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
        ),
        (
            "SKILL.md",
            "A JWT looks like eyJhbGciOiJIUzI1NiJ9.eyJ... (three parts).",
        ),
        (
            "SKILL.md",
            "Send `Authorization: Bearer <token>` with every request.",
        ),
        (
            "call.sh",
            "curl -H \"Authorization: Bearer ${API_TOKEN}\" x",
        ),
        ("call.sh", "curl -H \"Authorization: Bearer $TOKEN\" x"),
        ("api.py", "headers = {'Authorization': 'Bearer ' + token}"),
        (
            "SKILL.md",
            "The API uses Bearer authentication; ask for YOUR_ACCESS_TOKEN_HERE.",
        ),
        ("SKILL.md", "Use Basic auth."),
        (
            "SKILL.md",
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        ),
        (
            "SKILL.md",
            "https://hooks.slack.com/services/<team>/<channel>/<secret>",
        ),
        (
            "SKILL.md",
            "https://discord.com/api/webhooks/{webhook.id}/{webhook.token}",
        ),
        ("db.py", "password = \"\""),
        ("db.py", "password = ''"),
        ("db.py", "password = os.environ[\"DB_PASSWORD\"]"),
        ("db.py", "password: str = field(default=None)"),
        ("db.py", "if password == \"hunter2\":"),
        ("app.yaml", "password: ${DB_PASSWORD}"),
        ("app.yaml", "password: \"{{ vault_password }}\""),
        ("app.yaml", "password_file: /run/secrets/db"),
        (".env", "DB_PASSWORD="),
        (".env", "DB_PASSWORD=changeme"),
        ("config.json", "{\"password\": \"<your password>\"}"),
        (
            "config.json",
            "{\"password\": {\"type\": \"string\", \"minLength\": 8}}",
        ),
        (
            "SKILL.md",
            "Set password = your own, then press Enter. The password is kept in the keychain.",
        ),
        ("SKILL.md", "password: hunter22 (a bad example, in prose)"),
        ("aws.md", "AKIAIOSFODNN7EXAMPLE"),
        (
            "aws.md",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("ci.yml", "token: ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
        ("a.py", "x = 'xoxb-your-token-here'"),
        ("k.md", "Set API key: sk-your-key-here"),
        ("k.md", "sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
        (
            "k.md",
            "the desk-lamp-controller-with-a-very-long-name-1234567890 is fine",
        ),
        ("k.md", "time 12:30:45 and ratio 1234567890:1"),
        (
            "skill.json",
            "{\"name\": \"password-keeper\", \"version\": \"1.2.3\", \"description\": \"rotates the token-rotator's secrets\"}",
        ),
    ] {
        assert_eq!(rule(path, text), None, "{path}: {text}");
    }
}

/// Issue 26: secrets a skill package was installed with. Each is refused, naming its rule.
#[test]
fn issue_26_secrets_are_found() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "hooks.py",
            "STRIPE_WEBHOOK = 'whsec_5d3f9a1c7e2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f'",
            "stripe-webhook-secret",
        ),
        (
            "notify.md",
            "post to https://hooks.slack.com/services/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",
            "slack-webhook-url",
        ),
        (
            "bot.js",
            "client.login('MTA4NzY1NDMyMTA5ODc2NTQzMg.GhX2aB.k3Jd9fLq8wZpR2tYvN5mC7xB1sQ4eU6oI0aHgT')",
            "discord-api-token",
        ),
        (
            "SKILL.md",
            "connect with password=Hunt3r2xK9q",
            "password-assignment",
        ),
        (
            "fetch.py",
            "DB = 'postgres://admin:S3cretPass99@db.internal:5432/app'",
            "url-userinfo-password",
        ),
        (
            "SKILL.md",
            "curl https://deploy:Tr0ub4dor3x@git.acme.io/repo.git",
            "url-userinfo-password",
        ),
    ];
    for (path, text, want) in cases {
        assert_eq!(rule(path, text), Some(*want), "{path}: {text}");
    }
}

/// Their near misses: placeholders, prose, documentation on example.com.
#[test]
fn issue_26_near_misses_pass() {
    let cases: &[(&str, &str)] = &[
        (
            "SKILL.md",
            "Set STRIPE_WEBHOOK_SECRET to your whsec_... signing secret.",
        ),
        (
            "hooks.py",
            "secret = os.environ['STRIPE_WEBHOOK_SECRET']  # whsec_xxxxxxxxxxxxxxxx",
        ),
        (
            "SKILL.md",
            "Paste your https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX URL.",
        ),
        (
            "SKILL.md",
            "The bot token (Developer Portal > Bot > Reset Token) goes in DISCORD_TOKEN.",
        ),
        (
            "SKILL.md",
            "Pass password=<your password> or password=${DB_PASSWORD}.",
        ),
        (
            "SKILL.md",
            "The password= option takes the account's password.",
        ),
        (
            "SKILL.md",
            "e.g. https://user:pass@example.com/path or https://user:password@example.org",
        ),
        ("SKILL.md", "postgres://USER:PASSWORD@HOST:5432/DB"),
        ("SKILL.md", "https://${USER}:${TOKEN}@git.acme.io/repo.git"),
        (
            "SKILL.md",
            "see https://docs.acme.io/a:b@c and mailto:me@acme.io",
        ),
    ];
    for (path, text) in cases {
        assert_eq!(rule(path, text), None, "{path}: {text}");
    }
}
