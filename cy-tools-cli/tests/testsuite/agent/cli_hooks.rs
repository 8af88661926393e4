//! The model loop takes the host's hooks (a fake OpenAI-style provider on 127.0.0.1 stands in
//! for the model; no provider runs here): a pre hook rewrites the model's arguments before the
//! tool runs, a post hook from a `--hooks-file` replaces what the model is told, and a hook
//! that refuses is what the model reads, the tool never having run.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::json;

use super::cli_terminal::call_then_answer;
use crate::support::fake_model::FakeApi;

fn agent(dir: &Path, api: &FakeApi, extra: &[&str]) -> Output {
    let base = format!("{}/v1", api.url());
    let mut args = vec![
        "agent",
        "--provider",
        "openai",
        "--model",
        "gpt-fake",
        "--base-url",
        &base,
        "--root",
        "w",
    ];
    args.extend_from_slice(extra);
    args.push("write it");
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir)
        .args(&args)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// What the model was told of its one call.
fn told(api: &FakeApi) -> String {
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    tool["content"].as_str().unwrap().to_string()
}

fn write_call() -> Vec<crate::support::fake_model::Reply> {
    call_then_answer(
        "write_file",
        json!({"path": "a.txt", "content": "from the model"}),
        "Done.",
    )
}

#[test]
fn the_model_loops_calls_go_through_the_hosts_hooks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();

    // A pre hook rewrites the arguments: the file holds the hook's content.
    let api = FakeApi::start(write_call());
    let rewrite = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"path": "a.txt", "content": "from the hook"}}}'"#;
    let output = agent(dir.path(), &api, &["--pre-tool-hook", rewrite]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("w/a.txt")).unwrap(),
        "from the hook"
    );

    // A post hook from the host's file replaces what the model is told.
    let file = dir.path().join("hooks.json");
    std::fs::write(
        &file,
        json!({"hooks": {"PostToolUse": [{"matcher": "write_file", "hooks": [{"type": "command",
            "command": r#"echo '{"hookSpecificOutput": {"updatedToolOutput": "written (audited)"}}'"#}]}]}})
        .to_string(),
    )
    .unwrap();
    let api = FakeApi::start(write_call());
    let output = agent(dir.path(), &api, &["--hooks-file", file.to_str().unwrap()]);
    assert!(output.status.success());
    assert_eq!(told(&api), "written (audited)");

    // A refusing hook: the model reads why, and nothing was written.
    std::fs::remove_file(dir.path().join("w/a.txt")).unwrap();
    let api = FakeApi::start(write_call());
    let refuse = "echo 'writes need a ticket number' >&2; exit 2";
    let output = agent(dir.path(), &api, &["--pre-tool-hook", refuse]);
    assert!(output.status.success());
    assert_eq!(
        told(&api),
        format!("`write_file` was refused by hook `{refuse}`: writes need a ticket number")
    );
    assert!(!dir.path().join("w/a.txt").exists());
}
