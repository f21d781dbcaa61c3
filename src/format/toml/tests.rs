//! Unit tests of the TOML editor: comments, layout and key order kept through edits, the carry
//! of edited lines, and the refusals.

use super::*;
use crate::format::testutil::assert_diff;
use serde_json::json;

const CODEX: &str = r#"# Codex configuration (owner's notes below)
model = "gpt-5-codex" # the owner's pick
model_provider = "autonomous"
approval_policy = "never"

[model_providers.autonomous]
name = "Autonomous"
base_url = "https://campaign-api.autonomous.ai/api/v1/ai/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

# MCP servers
[mcp_servers.github]
command = "gh-mcp"
args = [
  "--stdio", # talk over stdio
  "--verbose",
]
env = { GITHUB_TOKEN = "ghp-x" }

[profiles.fast]
model = "o4-mini"
"#;

fn doc(text: &str) -> TomlDoc {
    TomlDoc::parse(text, "/root/.codex/config.toml").unwrap()
}

#[test]
fn reads_values_and_keys() {
    let d = doc(CODEX);
    assert_eq!(d.get(&["model"]), Some(json!("gpt-5-codex")));
    assert_eq!(
        d.get(&["mcp_servers", "github"]),
        Some(json!({
            "command": "gh-mcp",
            "args": ["--stdio", "--verbose"],
            "env": {"GITHUB_TOKEN": "ghp-x"}
        }))
    );
    assert_eq!(
        d.get(&["mcp_servers", "github", "env", "GITHUB_TOKEN"]),
        Some(json!("ghp-x"))
    );
    assert_eq!(d.get(&["nope"]), None);
    assert_eq!(
        d.keys(&[]),
        [
            "model",
            "model_provider",
            "approval_policy",
            "model_providers",
            "mcp_servers",
            "profiles"
        ]
    );
    assert_eq!(d.keys(&["mcp_servers", "github", "env"]), ["GITHUB_TOKEN"]);
    assert_eq!(d.value()["profiles"]["fast"]["model"], json!("o4-mini"));
    assert_eq!(d.to_string(), CODEX);
}

#[test]
fn changing_model_keeps_its_inline_comment() {
    let mut d = doc(CODEX);
    assert!(d.set(&["model"], json!("Auto-AI")).unwrap());
    assert_diff(
        CODEX,
        &d.to_string(),
        &[r#"model = "gpt-5-codex" # the owner's pick"#],
        &[r#"model = "Auto-AI" # the owner's pick"#],
    );
}

#[test]
fn add_an_mcp_server_as_a_standard_table() {
    let mut d = doc(CODEX);
    let notion = json!({
        "url": "https://mcp.notion.com/mcp",
        "http_headers": {"Authorization": "Bearer tok"}
    });
    assert!(d.set(&["mcp_servers", "notion"], notion.clone()).unwrap());
    let expected = CODEX.replace(
        "env = { GITHUB_TOKEN = \"ghp-x\" }\n",
        "env = { GITHUB_TOKEN = \"ghp-x\" }\n\n[mcp_servers.notion]\n\
             url = \"https://mcp.notion.com/mcp\"\n\
             http_headers = { Authorization = \"Bearer tok\" }\n",
    );
    assert_eq!(d.to_string(), expected);
    assert_eq!(d.get(&["mcp_servers", "notion"]), Some(notion.clone()));
    assert!(!d.set(&["mcp_servers", "notion"], notion).unwrap());
    assert_eq!(d.to_string(), expected);
}

#[test]
fn remove_an_mcp_server() {
    let mut d = doc(CODEX);
    assert!(d.remove(&["mcp_servers", "github"]).unwrap());
    assert!(!d.remove(&["mcp_servers", "github"]).unwrap());
    assert!(!d.remove(&["no", "such"]).unwrap());
    let out = d.to_string();
    assert!(!out.contains("github"), "{out}");
    assert!(out.contains("[profiles.fast]\nmodel = \"o4-mini\"\n"));
    assert!(out.contains("[model_providers.autonomous]\n"));
    assert!(TomlDoc::parse(&out, "x").is_ok());
}

#[test]
fn null_removes() {
    let mut d = doc(CODEX);
    assert!(d.set(&["approval_policy"], Value::Null).unwrap());
    assert_diff(
        CODEX,
        &d.to_string(),
        &[r#"approval_policy = "never""#],
        &[],
    );
    assert!(!d.set(&["approval_policy"], Value::Null).unwrap());
}

#[test]
fn new_provider_table_in_an_empty_file() {
    let mut d = TomlDoc::new_empty();
    d.set(&["model"], json!("Auto-AI")).unwrap();
    d.set(&["model_provider"], json!("autonomous")).unwrap();
    d.set(
        &["model_providers", "autonomous"],
        json!({"name": "Autonomous", "base_url": "https://x/v1", "env_key": "OPENAI_API_KEY"}),
    )
    .unwrap();
    d.set(&["mcp_servers", "fs", "command"], json!("npx"))
        .unwrap();
    d.set(&["mcp_servers", "fs", "args"], json!(["-y", "server-fs"]))
        .unwrap();
    d.set(&["mcp_servers", "fs", "env", "ROOT"], json!("/data"))
        .unwrap();
    assert_eq!(
        d.to_string(),
        "model = \"Auto-AI\"\nmodel_provider = \"autonomous\"\n\n\
             [model_providers.autonomous]\nname = \"Autonomous\"\nbase_url = \"https://x/v1\"\n\
             env_key = \"OPENAI_API_KEY\"\n\n\
             [mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"server-fs\"]\n\
             env = { ROOT = \"/data\" }\n"
    );
    let whole = d.value();
    assert!(!d.set(&[], whole).unwrap());
}

#[test]
fn setting_a_table_recurses_and_keeps_comments() {
    let mut d = doc(CODEX);
    let mut github = d.get(&["mcp_servers", "github"]).unwrap();
    github["args"] = json!(["--stdio", "--quiet", "--color=never"]);
    github["env"]["EXTRA"] = json!("1");
    github.as_object_mut().unwrap().remove("command");
    github["url"] = json!("https://api.githubcopilot.com/mcp/");
    assert!(d.set(&["mcp_servers", "github"], github.clone()).unwrap());
    assert_eq!(d.get(&["mcp_servers", "github"]), Some(github));
    let out = d.to_string();
    assert!(
        out.contains("  \"--stdio\", # talk over stdio\n  \"--quiet\",\n  \"--color=never\",\n]"),
        "{out}"
    );
    assert!(
        out.contains("env = { GITHUB_TOKEN = \"ghp-x\", EXTRA = \"1\" }"),
        "{out}"
    );
    assert!(!out.contains("command"));
    // merge adds without removing
    assert!(
        d.merge(&["profiles"], json!({"fast": {"approval_policy": "never"}}))
            .unwrap()
    );
    assert_eq!(
        d.get(&["profiles", "fast"]),
        Some(json!({"model": "o4-mini", "approval_policy": "never"}))
    );
}

#[test]
fn coerces_non_tables_on_the_way() {
    let mut d = doc("features = \"off\"\n[tools]\nweb_search = true\n");
    d.set(&["features", "rmcp_client"], json!(true)).unwrap();
    assert_eq!(d.get(&["features"]), Some(json!({"rmcp_client": true})));
    d.set(&["tools", "web_search", "x"], json!(1)).unwrap();
    assert_eq!(d.get(&["tools"]), Some(json!({"web_search": {"x": 1}})));
    assert!(TomlDoc::parse(&d.to_string(), "x").is_ok());
    // a value turned into a table gets a clean header
    let mut d = doc("features = \"off\"\n[tools]\nweb_search = true\n");
    d.set(&["features"], json!({"a": 1})).unwrap();
    d.set(&["tools"], json!(5)).unwrap();
    assert_eq!(d.to_string(), "tools = 5\n\n[features]\na = 1\n");
}

#[test]
fn inline_tables_stay_inline() {
    let mut d = doc("[mcp_servers]\nx = { command = \"a\", env = { K = \"v\" } }\n");
    d.set(&["mcp_servers", "x", "env", "L"], json!("w"))
        .unwrap();
    d.set(&["mcp_servers", "x", "headers"], json!({"A": "b"}))
        .unwrap();
    assert_eq!(
        d.to_string(),
        "[mcp_servers]\nx = { command = \"a\", env = { K = \"v\", L = \"w\" }, headers = { A = \"b\" } }\n"
    );
}

#[test]
fn refuses_what_toml_cannot_hold() {
    let mut d = doc(CODEX);
    let e = d.set(&["x"], json!([1, null])).unwrap_err();
    assert_eq!(e.code, "invalid_value");
    assert!(
        e.message.contains("/root/.codex/config.toml"),
        "{}",
        e.message
    );
    assert!(d.set(&["x"], json!(u64::MAX)).is_err());
    assert!(d.set(&[], json!(3)).is_err());
    assert_eq!(d.to_string(), CODEX);
}

#[test]
fn idempotent_set_is_byte_identical() {
    let mut d = doc(CODEX);
    assert!(!d.set(&["model"], json!("gpt-5-codex")).unwrap());
    assert!(
        !d.set(
            &["mcp_servers", "github", "env"],
            json!({"GITHUB_TOKEN": "ghp-x"})
        )
        .unwrap()
    );
    assert!(
        !d.merge(
            &["model_providers"],
            json!({"autonomous": {"wire_api": "responses"}})
        )
        .unwrap()
    );
    let whole = d.value();
    assert!(!d.set(&[], whole).unwrap());
    assert_eq!(d.to_string(), CODEX);
}

#[test]
fn crlf_files_stay_crlf() {
    let text = "a = 1 # one\r\n\r\n[t]\r\nb = 2\r\n";
    let mut d = doc(text);
    assert_eq!(d.to_string(), text);
    d.set(&["t", "c"], json!(3)).unwrap();
    d.set(&["u", "v"], json!({"w": 1})).unwrap();
    let out = d.to_string();
    assert_eq!(
        out.matches('\n').count(),
        out.matches("\r\n").count(),
        "{out:?}"
    );
    assert!(
        out.starts_with("a = 1 # one\r\n\r\n[t]\r\nb = 2\r\nc = 3\r\n"),
        "{out:?}"
    );
}

#[test]
fn malformed_files_are_refused_with_their_line() {
    for (text, line) in [
        ("model = \"x\"\n[tools\nweb = true\n", 2),
        ("a = 1\nb = \n", 2),
        ("a = 1\n\n[t]\nk = 1\nk = 2\n", 5),
        ("a = \"unterminated\n", 1),
    ] {
        let e = TomlDoc::parse(text, "/root/.codex/config.toml").unwrap_err();
        assert_eq!(e.code, "parse_error", "{text:?}");
        let loc = e.location.as_ref().unwrap();
        assert_eq!(loc.file, "/root/.codex/config.toml");
        assert_eq!(loc.line, Some(line), "{text:?}: {e}");
    }
}

#[test]
fn regression_toml_quoted_and_spaced_dotted_keys_were_refused() {
    let text = "name.first = \"Arthur\"\n\"name\".'last' = \"Dent\"\ncount . b = 2 # spaced\n";
    let mut d = doc(text);
    assert_eq!(d.to_string(), text);
    assert!(
        d.set(&["mcp_servers", "x", "command"], json!("cmd"))
            .unwrap()
    );
    assert_eq!(
        d.to_string(),
        format!("{text}\n[mcp_servers.x]\ncommand = \"cmd\"\n")
    );
    // a change elsewhere keeps those lines too
    assert!(d.set(&["count", "c"], json!(3)).unwrap());
    assert!(d.to_string().starts_with(text), "{d}");
    assert_eq!(d.get(&["name", "last"]), Some(json!("Dent")));
}

#[test]
fn regression_toml_quoted_table_names_were_refused() {
    let text = "['a']\n[a.'b']\n[a.'b'.c]\nanswer = 42 \n";
    let mut d = doc(text);
    assert!(
        d.set(&["mcp_servers", "x"], json!({"command": "cmd"}))
            .unwrap()
    );
    assert_eq!(
        d.to_string(),
        format!("{text}\n[mcp_servers.x]\ncommand = \"cmd\"\n")
    );
    assert_eq!(d.get(&["a", "b", "c", "answer"]), Some(json!(42)));
}

#[test]
fn regression_toml_interleaved_dotted_keys_were_regrouped() {
    let text = "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"\n";
    let mut d = doc(text);
    assert!(
        d.set(&["mcp_servers", "x", "command"], json!("cmd"))
            .unwrap()
    );
    assert!(d.to_string().starts_with(text), "{d}");
    assert!(d.set(&["apple", "color"], json!("red")).unwrap());
    assert_eq!(d.get(&["apple", "color"]), Some(json!("red")));
    assert!(TomlDoc::parse(&d.to_string(), "x").is_ok());
}

#[test]
fn an_edit_of_a_line_kept_as_written_is_refused_naming_it() {
    let text = "a = 1\n\"count\" . b = 2\ncount.c = 3\n";
    let mut d = doc(text);
    // toml_edit writes line 3 as `"count" .c = 3`
    let e = d.set(&["count", "c"], json!(5)).unwrap_err();
    assert_eq!(e.code, "cannot_edit_in_place");
    assert_eq!(e.location.as_ref().unwrap().line, Some(3), "{e}");
    assert!(e.message.contains("(`count.c = 3`)"), "{e}");
    assert_eq!(d.to_string(), text);
    assert!(d.set(&["count", "b"], json!(5)).unwrap());
    assert_eq!(d.get(&["count"]), Some(json!({"b": 5, "c": 3})));
    // the document is still usable
    assert!(d.set(&["a"], json!(2)).unwrap());
    assert_eq!(
        d.to_string(),
        text.replace("a = 1", "a = 2").replace("b = 2", "b = 5")
    );
}

#[test]
fn regression_toml_without_a_final_newline_was_refused() {
    let text = "# No newline at end of file.\n[table]\na=1";
    let mut d = doc(text);
    assert_eq!(d.to_string(), text);
    // an edit before the last line keeps it without a line break
    assert!(d.set(&["first"], json!(true)).unwrap());
    assert!(d.to_string().ends_with("\na=1"), "{d:?}");
    // one after it gives it one
    assert!(
        d.set(&["mcp_servers", "x", "command"], json!("cmd"))
            .unwrap()
    );
    assert!(
        d.to_string()
            .ends_with("a=1\n\n[mcp_servers.x]\ncommand = \"cmd\"\n"),
        "{:?}",
        d.to_string()
    );
    let mut d = doc("# only a comment");
    d.set(&["k"], json!(1)).unwrap();
    assert_eq!(d.to_string(), "# only a comment\nk = 1\n");
}

#[test]
fn regression_toml_with_a_byte_order_mark_was_refused() {
    let text = "\u{feff}model = \"m\"\r\n";
    let mut d = doc(text);
    assert_eq!(d.to_string(), text);
    d.set(&["mcp_servers", "x", "command"], json!("cmd"))
        .unwrap();
    assert_eq!(
        d.to_string(),
        "\u{feff}model = \"m\"\r\n\r\n[mcp_servers.x]\r\ncommand = \"cmd\"\r\n"
    );
    let e = TomlDoc::parse("\u{feff}\u{feff}a = 1\n", "x").unwrap_err();
    assert_eq!(e.location.as_ref().unwrap().line, Some(1));
}

#[test]
fn regression_trailing_comments_slipped_below_a_new_table() {
    let text = "a = 1\n# the end\n\n";
    let mut d = doc(text);
    d.set(&["mcp_servers", "x", "command"], json!("cmd"))
        .unwrap();
    assert!(d.to_string().starts_with(text), "{d:?}");
    let mut d = doc(" \n");
    d.set(&["mcp_servers", "x", "command"], json!("cmd"))
        .unwrap();
    assert!(d.to_string().starts_with(" \n["), "{:?}", d.to_string());
}

#[test]
fn regression_toml_errors_showed_the_parsers_words() {
    for (text, line, column, words) in [
        ("a = [1,,2]\n", 1, 8, "extra comma"),
        ("a = tru\n", 1, 5, "invalid boolean"),
        ("a = 1\na = 2\n", 2, 1, "duplicate key"),
        ("[t\nx = 1\n", 1, 3, "unclosed table"),
        ("s = \"\\q\"\n", 1, 7, "missing escaped value"),
    ] {
        let e = TomlDoc::parse(text, "/root/.codex/config.toml").unwrap_err();
        let loc = e.location.as_ref().unwrap();
        assert_eq!(
            (loc.line, loc.column),
            (Some(line), Some(column)),
            "{text:?}: {e}"
        );
        assert!(!e.to_string().contains(words), "{text:?}: {e}");
        assert!(!e.to_string().contains("expected"), "{text:?}: {e}");
    }
    let e = TomlDoc::parse("a = 1\na = 2\n", "x").unwrap_err();
    assert!(e.to_string().contains("`a` is defined twice"), "{e}");
}

#[test]
fn nesting_up_to_codex_limit_is_edited_and_deeper_refused() {
    let keys = |n: usize| {
        (0..n)
            .map(|i| format!("k{i}"))
            .collect::<Vec<_>>()
            .join(".")
    };
    let mut d = doc(&format!("[{}]\nx = 1\n", keys(79)));
    assert!(d.set(&["mcp_servers", "x", "command"], json!("c")).unwrap());
    let e = TomlDoc::parse(&format!("a = 1\n[{}]\nx = 1\n", keys(90)), "x").unwrap_err();
    assert_eq!(e.location.as_ref().unwrap().line, Some(2), "{e}");
    let deep = format!("a = {}{}\n", "[".repeat(90), "]".repeat(90));
    let e = TomlDoc::parse(&deep, "x").unwrap_err();
    assert!(e.to_string().contains("80"), "{e}");
}

/// Presync in subscription mode removes `model_provider`, `model` and the provider table: the
/// comments standing on their own lines above them (the file's top comment first) stay.
#[test]
fn removing_keys_keeps_the_comments_above_them() {
    let text = "# Agent settings: the device writes the model wiring, the owner the rest.\n\
                model_provider = \"autonomous\"\n\
                model = \"gpt-5\" # the owner's pick\n\
                effort = \"medium\"\n\
                \n\
                # the provider osctl wrote\n\
                [model_providers.autonomous]\n\
                name = \"autonomous\"\n\
                \n\
                # owner's tui settings\n\
                [tui]\n\
                notifications = true\n";
    let mut d = doc(text);
    assert!(d.remove(&["model_provider"]).unwrap());
    assert!(d.remove(&["model"]).unwrap());
    assert!(d.remove(&["model_providers", "autonomous"]).unwrap());
    let out = d.to_string();
    for comment in [
        "# Agent settings: the device writes the model wiring, the owner the rest.\n",
        "# the provider osctl wrote\n",
        "# owner's tui settings\n",
    ] {
        assert!(out.contains(comment), "{comment:?} lost:\n{out}");
    }
    assert!(
        out.starts_with("# Agent settings"),
        "the top comment moved:\n{out}"
    );
    for gone in ["model_provider =", "model =", "[model_providers"] {
        assert!(!out.contains(gone), "{gone} kept:\n{out}");
    }
    assert!(TomlDoc::parse(&out, "x").is_ok());
}
