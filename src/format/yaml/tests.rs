use super::*;
use crate::format::testutil::assert_diff;
use serde_json::json;

const HERMES: &str = "\
# Hermes Agent configuration
# (edited by the owner; osctl keeps these comments)

model: ''  # left by a reset
custom_providers: ''

# terminal backend
terminal:
  backend: local
  cwd: /data/scratch # the owner's scratch dir

approvals: {mode: \"on\"}
display:
  skin: default   # try 'mono'
  compact: false
toolsets:
  - hermes-cli
  - web
# end of file
";

fn doc(text: &str) -> YamlDoc {
    YamlDoc::parse(text, "/root/.hermes/config.yaml").unwrap()
}

#[test]
fn reads_values_and_keys() {
    let d = doc(HERMES);
    assert_eq!(d.get(&["model"]), Some(json!("")));
    assert_eq!(d.get(&["terminal", "cwd"]), Some(json!("/data/scratch")));
    assert_eq!(d.get(&["toolsets", "1"]), Some(json!("web")));
    assert_eq!(d.get(&["toolsets", "2"]), None);
    assert_eq!(d.get(&["approvals", "mode"]), Some(json!("on")));
    assert_eq!(
        d.keys(&[]),
        [
            "model",
            "custom_providers",
            "terminal",
            "approvals",
            "display",
            "toolsets"
        ]
    );
    assert_eq!(d.keys(&["display"]), ["skin", "compact"]);
    assert_eq!(d.to_string(), HERMES);
    d.validate().unwrap();
}

#[test]
fn approvals_mode_off_is_written_double_quoted() {
    let mut d = doc(HERMES);
    assert!(d.set(&["approvals", "mode"], json!("off")).unwrap());
    assert_diff(
        HERMES,
        &d.to_string(),
        &["approvals: {mode: \"on\"}"],
        &["approvals: {mode: \"off\"}"],
    );
    // in a block mapping too, and for a new key
    let mut d = doc("approvals:\n  mode: manual # ask\n");
    d.set(&["approvals", "mode"], json!("off")).unwrap();
    d.set(&["approvals", "timeout"], json!("yes")).unwrap();
    assert_eq!(
        d.to_string(),
        "approvals:\n  mode: \"off\" # ask\n  timeout: \"yes\"\n"
    );
    assert_eq!(d.get(&["approvals", "mode"]), Some(json!("off")));
    d.validate().unwrap();
}

#[test]
fn terminal_cwd_replaces_only_its_value() {
    let mut d = doc(HERMES);
    assert!(d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap());
    assert_diff(
        HERMES,
        &d.to_string(),
        &["  cwd: /data/scratch # the owner's scratch dir"],
        &["  cwd: /root/.hermes # the owner's scratch dir"],
    );
}

#[test]
fn coerces_a_reset_model_and_custom_providers() {
    let mut d = doc(HERMES);
    d.set(&["model", "provider"], json!("custom:autonomous"))
        .unwrap();
    d.set(&["model", "default"], json!("Auto-AI")).unwrap();
    d.set(
        &["custom_providers", "0"],
        json!({
            "name": "autonomous",
            "key_env": "AUTONOMOUS_API_KEY",
            "api_mode": "anthropic_messages",
            "base_url": "https://campaign-api.autonomous.ai/api/v1/ai"
        }),
    )
    .unwrap();
    d.set(
        &[
            "custom_providers",
            "0",
            "models",
            "Auto-AI",
            "prompt_caching",
        ],
        json!(true),
    )
    .unwrap();
    let expected = HERMES
        .replace(
            "model: ''  # left by a reset\n",
            "model:  # left by a reset\n  provider: custom:autonomous\n  default: Auto-AI\n",
        )
        .replace(
            "custom_providers: ''\n",
            "custom_providers:\n  - name: autonomous\n    key_env: AUTONOMOUS_API_KEY\n    \
             api_mode: anthropic_messages\n    \
             base_url: https://campaign-api.autonomous.ai/api/v1/ai\n    \
             models:\n      Auto-AI:\n        prompt_caching: true\n",
        );
    assert_eq!(d.to_string(), expected);
    assert_eq!(
        d.get(&[
            "custom_providers",
            "0",
            "models",
            "Auto-AI",
            "prompt_caching"
        ]),
        Some(json!(true))
    );
    // and the base_url in place
    d.set(
        &["custom_providers", "0", "base_url"],
        json!("https://example.test/v1"),
    )
    .unwrap();
    assert_diff(
        &expected,
        &d.to_string(),
        &["    base_url: https://campaign-api.autonomous.ai/api/v1/ai"],
        &["    base_url: https://example.test/v1"],
    );
    d.validate().unwrap();
}

const FLOW: &str = "\
model: {provider: custom:autonomous, default: Auto-AI}
custom_providers:
  - {name: autonomous, key_env: AUTONOMOUS_API_KEY, api_mode: anthropic_messages,
 base_url: \"https://campaign-api.autonomous.ai/api/v1/ai/v1\", models: {Auto-AI: {prompt_caching: true}}}
prompt_caching: {cache_ttl: 1h}
approvals: {mode: \"off\"}
";

#[test]
fn flow_style_survives_edits() {
    let mut d = doc(FLOW);
    assert!(
        d.set(&["model", "default"], json!("qwen/qwen3.6-plus"))
            .unwrap()
    );
    assert_diff(
        FLOW,
        &d.to_string(),
        &["model: {provider: custom:autonomous, default: Auto-AI}"],
        &["model: {provider: custom:autonomous, default: qwen/qwen3.6-plus}"],
    );
    let mut d = doc(FLOW);
    assert!(
        d.set(
            &["custom_providers", "0", "base_url"],
            json!("https://example.test/v1")
        )
        .unwrap()
    );
    // the quoted URL stays quoted
    assert!(
        d.to_string()
            .contains("base_url: \"https://example.test/v1\", models:"),
        "{d}"
    );
    let mut d = doc(FLOW);
    d.set(
        &["model", "fallback"],
        json!({"provider": "x", "when": "off"}),
    )
    .unwrap();
    assert!(
        d.to_string()
            .starts_with("model: {provider: custom:autonomous, default: Auto-AI, fallback: {provider: x, when: \"off\"}}\n"),
        "{d}"
    );
    d.validate().unwrap();
}

#[test]
fn idempotent_sets_are_byte_identical() {
    for text in [HERMES, FLOW] {
        let mut d = doc(text);
        let whole = d.value();
        assert!(!d.set(&[], whole.clone()).unwrap());
        for key in d.keys(&[]) {
            let v = d.get(&[&key]).unwrap();
            assert!(!d.set(&[&key], v).unwrap(), "{key}");
        }
        assert!(!d.merge(&[], whole).unwrap());
        assert_eq!(d.to_string(), text);
    }
    let mut d = doc(FLOW);
    assert!(!d.set(&["approvals", "mode"], json!("off")).unwrap());
    assert!(
        !d.set(
            &["custom_providers", "0", "models", "Auto-AI"],
            json!({"prompt_caching": true})
        )
        .unwrap()
    );
    assert_eq!(d.to_string(), FLOW);
    // after a change, the second identical set is a no-op
    let mut d = doc(HERMES);
    let v = json!({"vision": {"provider": "custom:autonomous", "timeout": 120, "extra_body": {}}});
    assert!(d.set(&["auxiliary"], v.clone()).unwrap());
    let once = d.to_string();
    assert!(!d.set(&["auxiliary"], v).unwrap());
    assert_eq!(d.to_string(), once);
}

#[test]
fn risky_strings_are_quoted() {
    let mut d = doc("a: 1\n");
    let values = [
        "off",
        "On",
        "YES",
        "n",
        "~",
        "null",
        "True",
        "",
        " lead",
        "trail ",
        "0755",
        "0x1F",
        "1_000",
        "12:30",
        "1e3",
        "2026-01-01",
        "2026-01-01T10:00:00Z",
        ".inf",
        "-.5",
        "+1",
        "*star",
        "&amp",
        "!tag",
        "%pct",
        "@at",
        "`tick",
        "|pipe",
        ">fold",
        "{brace",
        "[bracket",
        "- dash",
        "? q",
        ": colon",
        "a: b",
        "a #b",
        "ends:",
        "a,b",
        "line\nbreak",
        "tab\tin",
    ];
    for (i, v) in values.iter().enumerate() {
        d.set(&[&format!("k{i}")], json!(v)).unwrap();
    }
    for (i, v) in values.iter().enumerate() {
        assert_eq!(d.get(&[&format!("k{i}")]), Some(json!(v)));
        let line = d
            .to_string()
            .lines()
            .find(|l| l.starts_with(&format!("k{i}: ")))
            .unwrap()
            .to_string();
        assert!(line.contains(": \""), "{line}");
    }
    // safe in any style
    for v in ["quote\"s", "back\\slash", "it's"] {
        d.set(&["safe"], json!(v)).unwrap();
        assert_eq!(d.get(&["safe"]), Some(json!(v)));
    }
    d.validate().unwrap();
    // plain where plain is safe
    for v in [
        "custom:autonomous",
        "qwen/qwen3.6-plus",
        "Auto-AI",
        "1h",
        "https://x.y/v1",
        "yes please",
        "é",
    ] {
        assert!(!needs_quotes(v), "{v}");
    }
}

#[test]
fn date_like_strings_and_keys() {
    let mut d = doc("a: 1\n");
    d.set(&["since"], json!("2026-01-01")).unwrap();
    d.set(&["on"], json!("x")).unwrap();
    d.set(&["n", "12:30"], json!(1.5)).unwrap();
    // `n` is a YAML 1.1 boolean, as a key too
    assert_eq!(
        d.to_string(),
        "a: 1\nsince: \"2026-01-01\"\n\"on\": x\n\"n\":\n  \"12:30\": 1.5\n"
    );
    assert_eq!(d.get(&["n", "12:30"]), Some(json!(1.5)));
}

#[test]
fn empty_flow_placeholders_become_block() {
    let text = "# providers\ncustom_providers: []\nmcp_servers: {}\nflow: {list: []}\n";
    let mut d = doc(text);
    d.set(&["custom_providers", "0", "name"], json!("autonomous"))
        .unwrap();
    d.set(
        &["mcp_servers", "notion", "url"],
        json!("https://mcp.notion.com/mcp"),
    )
    .unwrap();
    d.set(&["flow", "list", "0"], json!("x")).unwrap();
    assert_eq!(
        d.to_string(),
        "# providers\ncustom_providers:\n  - name: autonomous\nmcp_servers:\n  notion:\n    \
         url: https://mcp.notion.com/mcp\nflow: {list: [x]}\n"
    );
    d.validate().unwrap();
}

#[test]
fn whole_sequences_and_items() {
    let mut d = doc(HERMES);
    d.set(
        &["toolsets"],
        json!(["hermes-cli", "browser", "web", "mcp"]),
    )
    .unwrap();
    assert_eq!(
        d.get(&["toolsets"]),
        Some(json!(["hermes-cli", "browser", "web", "mcp"]))
    );
    assert!(
        d.to_string()
            .contains("toolsets:\n  - hermes-cli\n  - browser\n  - web\n  - mcp\n# end of file\n"),
        "{d}"
    );
    d.set(&["toolsets"], json!(["web"])).unwrap();
    assert!(
        d.to_string()
            .contains("toolsets:\n  - web\n# end of file\n"),
        "{d}"
    );
    assert!(d.set(&["toolsets", "5"], json!("x")).is_err());
    assert!(d.set(&["toolsets", "1"], json!("appended")).unwrap());
    assert_eq!(d.get(&["toolsets"]), Some(json!(["web", "appended"])));
    assert!(d.remove(&["toolsets", "0"]).unwrap());
    assert_eq!(d.get(&["toolsets"]), Some(json!(["appended"])));
    d.validate().unwrap();
}

#[test]
fn new_top_level_keys_append_at_the_end() {
    let mut d = doc(HERMES);
    d.set(&["mcp_servers", "notion"], json!({"url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer t"}, "enabled": true})).unwrap();
    assert_eq!(
        d.to_string(),
        format!(
            "{HERMES}mcp_servers:\n  notion:\n    url: https://mcp.notion.com/mcp\n    headers:\n      \
             Authorization: Bearer t\n    enabled: true\n"
        )
    );
}

#[test]
fn setting_a_mapping_recurses_and_keeps_comments() {
    let mut d = doc(HERMES);
    d.set(&["display"], json!({"skin": "mono", "theme": "dark"}))
        .unwrap();
    assert_diff(
        HERMES,
        &d.to_string(),
        &["  skin: default   # try 'mono'", "  compact: false"],
        &["  skin: mono   # try 'mono'", "  theme: dark"],
    );
    d.merge(&["display"], json!({"compact": true})).unwrap();
    assert_eq!(
        d.get(&["display"]),
        Some(json!({"skin": "mono", "theme": "dark", "compact": true}))
    );
}

#[test]
fn remove_keys() {
    let mut d = doc(HERMES);
    assert!(d.remove(&["display", "compact"]).unwrap());
    assert_diff(HERMES, &d.to_string(), &["  compact: false"], &[]);
    assert!(!d.remove(&["display", "compact"]).unwrap());
    assert!(!d.remove(&["nope", "x"]).unwrap());
    let mut d = doc(FLOW);
    assert!(d.remove(&["model", "default"]).unwrap());
    assert!(
        d.to_string()
            .starts_with("model: {provider: custom:autonomous}\n"),
        "{d}"
    );
}

#[test]
fn empty_and_comment_only_files() {
    let mut d = YamlDoc::new_empty();
    assert_eq!(d.value(), Value::Null);
    d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap();
    assert_eq!(d.to_string(), "terminal:\n  cwd: /root/.hermes\n");
    let mut d = doc("# nothing here yet\n");
    d.set(&["approvals", "mode"], json!("off")).unwrap();
    assert_eq!(
        d.to_string(),
        "# nothing here yet\napprovals:\n  mode: \"off\"\n"
    );
}

#[test]
fn crlf_files_stay_crlf() {
    let text = "a: 1\r\nb:\r\n  c: 2 # two\r\n";
    let mut d = doc(text);
    d.set(&["b", "c"], json!(3)).unwrap();
    d.set(&["b", "d"], json!({"e": "off"})).unwrap();
    let out = d.to_string();
    assert_eq!(
        out.matches('\n').count(),
        out.matches("\r\n").count(),
        "{out:?}"
    );
    assert!(out.starts_with("a: 1\r\nb:\r\n  c: 3 # two\r\n"), "{out:?}");
}

#[test]
fn numbers_round_trip() {
    let mut d = doc("a: 1\n");
    for (i, v) in [
        json!(120),
        json!(-3),
        json!(1.5),
        json!(1e300),
        json!(2.5e-8),
        json!(u64::MAX),
    ]
    .iter()
    .enumerate()
    {
        d.set(&[&format!("n{i}")], v.clone()).unwrap();
        assert_eq!(d.get(&[&format!("n{i}")]).as_ref(), Some(v));
    }
    assert!(d.to_string().contains("n3: 1.0e+300\n"), "{d}");
    d.validate().unwrap();
}

#[test]
fn anchors_and_aliases() {
    let text = "base: &b\n  x: 1\ncopy: *b\n";
    let mut d = doc(text);
    assert_eq!(d.get(&["copy", "x"]), Some(json!(1)));
    d.set(&["copy", "y"], json!(2)).unwrap();
    assert_eq!(d.get(&["copy"]), Some(json!({"x": 1, "y": 2})));
    assert_eq!(d.get(&["base"]), Some(json!({"x": 1})));
    d.validate().unwrap();
    let mut d = doc(text);
    assert!(d.remove(&["copy", "x"]).unwrap());
    assert_eq!(d.get(&["copy"]), Some(json!({})));
    assert_eq!(d.get(&["base", "x"]), Some(json!(1)));
}

fn parse_err(text: &str) -> Error {
    YamlDoc::parse(text, "/root/.hermes/config.yaml").unwrap_err()
}

#[test]
fn malformed_files_are_refused_with_their_line() {
    for (text, line) in [
        ("model: x\nterminal: a: b\n", 2),
        ("a:\n  b: 1\n c: 2\n", 3),
        ("a: 1\nb: [1, 2\nc: 3\n", 3),
        ("a: 1\na: 2\n", 2),
        ("x:\n  k: 1\n  k: 2\n", 3),
        ("a: 'unterminated\nb: 1\n", 1),
    ] {
        let e = parse_err(text);
        assert_eq!(e.code, "parse_error", "{text:?}");
        let loc = e.location.as_ref().unwrap();
        assert_eq!(loc.file, "/root/.hermes/config.yaml");
        assert_eq!(loc.line, Some(line), "{text:?}: {e}");
    }
    let e = parse_err("a: 1\n---\nb: 2\n");
    assert_eq!(e.code, "parse_error");
    let e = parse_err("a: 1\na: 2\n");
    assert!(e.to_string().contains("duplicate key `a`"), "{e}");
    assert!(!e.to_string().contains("DuplicateKeyPolicy"), "{e}");
}

#[test]
fn refuses_roots_it_cannot_edit() {
    let mut d = doc("- a\n- b\n");
    assert_eq!(d.get(&["1"]), Some(json!("b")));
    assert!(d.set(&["x"], json!(1)).is_err());
    assert_eq!(d.to_string(), "- a\n- b\n");
}

#[test]
fn a_result_that_reads_back_wrong_is_undone() {
    // Simulate an editor slip: change the tree, but claim a different intended document.
    let mut d = doc(HERMES);
    let before = d.to_string();
    let root = d.file.document().unwrap().as_mapping().unwrap();
    root.set("terminal", ScalarValue::plain("oops"));
    let mut wrong = d.value();
    wrong["terminal"]["cwd"] = json!("/root/.hermes");
    let e = d.commit(&["terminal", "cwd"], wrong).unwrap_err();
    assert_eq!(e.code, "internal");
    assert!(e.message.contains("terminal.cwd"), "{}", e.message);
    assert_eq!(d.to_string(), before);
    assert_eq!(d.file.to_string(), before);
    assert_eq!(d.value(), doc(HERMES).value());
    d.validate().unwrap();
}

#[test]
fn sequence_style_follows_the_file() {
    let v = json!([{"name": "x", "models": ["a", "b"]}]);
    let mut d = doc("toolsets:\n- a\n");
    d.set(&["custom_providers"], v.clone()).unwrap();
    assert_eq!(
        d.to_string(),
        "toolsets:\n- a\ncustom_providers:\n- name: x\n  models:\n  - a\n  - b\n"
    );
    let mut d = doc("toolsets:\n  - a\n");
    d.set(&["custom_providers"], v.clone()).unwrap();
    assert_eq!(
        d.to_string(),
        "toolsets:\n  - a\ncustom_providers:\n  - name: x\n    models:\n      - a\n      - b\n"
    );
    assert_eq!(sequence_indent("a: 1\n"), 2);
    assert_eq!(sequence_indent("a:\n  b: # c\n  - x\n"), 0);
}

#[test]
fn new_content_in_a_four_space_file_is_indented_two() {
    // A known limit, kept honest: valid YAML, verified, but not the file's 4-space step.
    let mut d = doc("terminal:\n    backend: local\n");
    d.set(&["terminal", "env"], json!({"A": "1"})).unwrap();
    assert_eq!(
        d.to_string(),
        "terminal:\n    backend: local\n    env:\n      A: \"1\"\n"
    );
    assert_eq!(d.get(&["terminal", "env", "A"]), Some(json!("1")));
}

#[test]
fn comments_at_column_zero_inside_a_block() {
    // hermes' example config resumes a block's keys after comment lines at column 0
    let text = "terminal:\n  backend: \"local\"\n  cwd: \".\"  # local backend\n  timeout: 180\n\n\
                # -----\n# OPTION 2\n# terminal:\n#   backend: \"ssh\"\n\n\
                # --- Container limits\n  container_cpu: 1              # CPU cores\n\
                \x20 container_persistent: true    # persist\n\n# ----\nbrowser:\n  timeout: 120\n";
    let mut d = doc(text);
    assert_eq!(
        d.get(&["terminal", "container_persistent"]),
        Some(json!(true))
    );
    d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap();
    d.set(&["terminal", "home_mode"], json!("auto")).unwrap();
    assert!(d.remove(&["terminal", "container_cpu"]).unwrap());
    d.set(&["approvals", "mode"], json!("off")).unwrap();
    assert_diff(
        text,
        &d.to_string(),
        &[
            "  cwd: \".\"  # local backend",
            "  container_cpu: 1              # CPU cores",
        ],
        &[
            "  cwd: \"/root/.hermes\"  # local backend",
            "  home_mode: auto",
            "approvals:",
            "  mode: \"off\"",
        ],
    );
    assert!(
        d.to_string()
            .contains("# persist\n  home_mode: auto\n\n# ----\n"),
        "{d}"
    );
}

/// A config in the shape hermes ships: banner comments, comments inside and after blocks,
/// whitespace-only lines, quoted strings, an indentless sequence.
const SHIPPED: &str = "\
# Hermes Agent configuration for this device
# Edit with `hermes config set` or by hand.

_config_version: 50

# ====================
# Database
# ====================
database:
  journal_mode: \"wal\"  # or \"delete\"
  # wal_autocheckpoint: 1000

# ====================
# Model
# ====================
model:
  # Default model (overridable with --model)
  default: \"anthropic/claude-opus-4.6\"
  \n  # Provider: auto, openrouter, nous, custom, ...
  provider: \"auto\"
  \n  base_url: \"https://openrouter.ai/api/v1\"

  # context_length: 131072
  # streaming: true

# providers:
#   my-proxy:
#     base_url: https://llm.internal.example/v1

terminal:
  backend: local   # local, docker, ssh
  cwd: \".\"
  timeout: 180

approvals:
  mode: manual   # manual | smart | off

toolsets:
- hermes-cli
- web
";

#[test]
fn presync_on_a_shipped_config_touches_only_its_lines() {
    let mut d = doc(SHIPPED);
    d.set(&["model", "provider"], json!("custom:autonomous"))
        .unwrap();
    d.set(&["model", "default"], json!("Auto-AI")).unwrap();
    d.set(
        &["custom_providers", "0"],
        json!({
            "name": "autonomous",
            "key_env": "AUTONOMOUS_API_KEY",
            "api_mode": "anthropic_messages",
            "base_url": "https://campaign-api.autonomous.ai/api/v1/ai"
        }),
    )
    .unwrap();
    d.set(&["terminal", "cwd"], json!("/root/.hermes")).unwrap();
    d.set(&["approvals", "mode"], json!("off")).unwrap();
    d.set(&["database", "wal_autocheckpoint"], json!(1000))
        .unwrap();
    assert_diff(
        SHIPPED,
        &d.to_string(),
        &[
            "  default: \"anthropic/claude-opus-4.6\"",
            "  provider: \"auto\"",
            "  cwd: \".\"",
            "  mode: manual   # manual | smart | off",
        ],
        &[
            "  wal_autocheckpoint: 1000",
            "  default: \"Auto-AI\"",
            "  provider: \"custom:autonomous\"",
            "  cwd: \"/root/.hermes\"",
            "  mode: \"off\"   # manual | smart | off",
            "custom_providers:",
            "- name: autonomous",
            "  key_env: AUTONOMOUS_API_KEY",
            "  api_mode: anthropic_messages",
            "  base_url: https://campaign-api.autonomous.ai/api/v1/ai",
        ],
    );
    // the new key goes under the block's last key, above its trailing comments
    assert!(d.to_string().contains(
        "  journal_mode: \"wal\"  # or \"delete\"\n  wal_autocheckpoint: 1000\n  # wal_autocheckpoint: 1000\n"
    ));
    // running the same presync again changes nothing
    let once = d.to_string();
    assert!(
        !d.set(&["model", "provider"], json!("custom:autonomous"))
            .unwrap()
    );
    assert!(!d.set(&["approvals", "mode"], json!("off")).unwrap());
    assert!(
        !d.set(&["custom_providers", "0", "name"], json!("autonomous"))
            .unwrap()
    );
    assert_eq!(d.to_string(), once);
    d.validate().unwrap();
}

#[test]
fn number_texts() {
    let n = |v: Value| number_text(v.as_number().unwrap());
    assert_eq!(n(json!(1)), "1");
    assert_eq!(n(json!(1.5)), "1.5");
    assert_eq!(n(json!(100.0)), "100.0");
    assert_eq!(n(json!(1e300)), "1.0e+300");
    assert_eq!(n(json!(2.5e-8)), "2.5e-8");
}

#[test]
fn regression_a_set_root_was_edited_into_a_broken_set() {
    let text = "--- !!set\n? a\n? b\n";
    let mut d = doc(text);
    let e = d
        .set(&["mcp_servers", "x"], json!({"command": "c"}))
        .unwrap_err();
    assert_eq!(e.code, "invalid_value");
    assert!(e.to_string().contains("`!!set`"), "{e}");
    assert_eq!(e.location.as_ref().unwrap().line, Some(1));
    assert_eq!(d.to_string(), text);
    let e = doc("- a\n").set(&["k"], json!(1)).unwrap_err();
    assert_eq!(e.location.as_ref().unwrap().line, Some(1), "{e}");
}

#[test]
fn regression_yaml_errors_showed_the_parsers_words() {
    for (text, words) in [
        ("a:\n  b: 1\n c: 2\n", "did not find expected key"),
        ("a: b: c\n", "mapping values are not allowed"),
        ("a: *nope\n", "alias references unknown anchor"),
        ("a: 1\na: 2\n", "DuplicateKeyPolicy"),
    ] {
        let e = parse_err(text);
        assert!(!e.to_string().contains(words), "{text:?}: {e}");
        let loc = e.location.as_ref().unwrap();
        assert!(loc.line.is_some() && loc.column.is_some(), "{text:?}: {e}");
    }
}

#[test]
fn an_anchor_on_mcp_servers_is_edited_in_place() {
    let text = "defaults: &srv\n  enabled: true\nmcp_servers: &servers\n  gh:\n    command: gh\n    <<: *srv\n";
    let mut d = doc(text);
    d.set(
        &["mcp_servers", "x"],
        json!({"command": "c", "enabled": true}),
    )
    .unwrap();
    assert!(d.to_string().starts_with(text), "{d}");
    assert_eq!(d.get(&["mcp_servers", "gh", "enabled"]), Some(json!(true)));
    assert_eq!(d.get(&["mcp_servers", "x", "command"]), Some(json!("c")));
    d.validate().unwrap();
}

#[test]
fn regression_an_aliased_anchor_on_mcp_servers_exited_101() {
    let text = "mcp_servers: &s\n  gh:\n    command: gh\nmirror: *s\n";
    let mut d = doc(text);
    let e = d
        .set(&["mcp_servers", "x"], json!({"command": "c"}))
        .unwrap_err();
    assert_eq!(
        (e.code, e.exit),
        ("cannot_edit_in_place", crate::error::Exit::Failed)
    );
    assert!(e.to_string().contains("alias"), "{e}");
    assert_eq!(d.to_string(), text);
    d.validate().unwrap();
}
