//! `cy-tools agent` against the fake API: its exit codes, its streamed output, and `delegate`
//! running a child session whose calls are logged under it.

use std::path::Path;
use std::process::{Command, Output};

use cy_tools::{services::ExecutionLog, session::SpecStore};
use cy_tools_agent::SUBAGENT_PROMPT;
use cy_tools_session::store::SqliteStore;

use crate::support::fake_model::{FakeApi, Reply};

pub(super) fn agent(dir: &Path, api: &FakeApi, extra: &[&str]) -> Output {
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
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir)
        .args(&args)
        .env_remove("CY_TOOLS_STORE")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

pub(super) fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    std::fs::write(dir.path().join("w/notes.txt"), "hello from the notes\n").unwrap();
    dir
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn delegate_runs_a_child_session_whose_calls_are_logged_under_it() {
    let api = FakeApi::start(vec![
        // The root asks the helper; the helper reads the file and answers; the root answers,
        // streamed.
        Reply::ok("openai/delegate_call.json"),
        Reply::ok("openai/one_call.json"),
        Reply::ok("openai/child_answer.json"),
        Reply::stream("openai/stream_answer.sse"),
    ]);
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"session_id": "root-1", "tools": ["read_file", "list_directory"]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("subagents.json"),
        r#"[{"name": "helper", "tools": ["read_file"]}]"#,
    )
    .unwrap();
    let output = agent(
        dir.path(),
        &api,
        &[
            "--spec",
            "spec.json",
            "--store",
            "state",
            "--subagents",
            "subagents.json",
            "--system",
            "you lead",
            "say what the notes hold",
        ],
    );
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("I will ask the helper."), "{stdout}");
    assert!(stdout.contains("The notes say hello."), "{stdout}");
    assert!(stderr.contains("-> delegate"), "{stderr}");
    assert!(stderr.contains("<- delegate (ok)"), "{stderr}");

    // What the child's model was sent: the subagent prompt, the parent's task, its own tools.
    let requests = api.requests();
    assert_eq!(requests.len(), 4);
    let child = &requests[1].body;
    assert_eq!(child["messages"][0]["content"], SUBAGENT_PROMPT);
    assert_eq!(
        child["messages"][1]["content"],
        "Read notes.txt and say what it holds."
    );
    let child_tools: Vec<&str> = child["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(child_tools, ["execute_code", "read_file"]);
    assert_eq!(requests[0].body["messages"][0]["content"], "you lead");
    let root_tools = requests[0].body["tools"].to_string();
    assert!(root_tools.contains("\"delegate\"") && root_tools.contains("list_directory"));
    assert_eq!(
        requests[2].body["messages"][3]["tool_call_id"],
        "call_read_1"
    );
    // The parent's model gets the child's answer as `delegate`'s result.
    let result = &requests[3].body["messages"][3];
    assert_eq!(result["tool_call_id"], "call_delegate_1");
    let answer = result["content"].as_str().unwrap();
    assert!(
        answer.contains("session `root-1.helper-1`")
            && answer.contains("notes.txt says: hello from the notes"),
        "{answer}"
    );

    // The log: the child session exists under the root, its call and usage under its own id.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = SqliteStore::open(dir.path().join("state/sessions.db")).unwrap();
        assert_eq!(store.children("root-1").await.unwrap(), ["root-1.helper-1"]);
        let child = store.entries("root-1.helper-1").await.unwrap();
        assert_eq!(child.len(), 1);
        assert_eq!(
            (child[0].tool.as_str(), child[0].call_id.as_str()),
            ("read_file", "call_read_1")
        );
        assert_eq!(child[0].parent_call.as_deref(), Some("call_delegate_1"));
        let root = store.entries("root-1").await.unwrap();
        assert_eq!(root.len(), 1);
        assert_eq!(root[0].tool, "delegate");
        let turns: Vec<u64> = store
            .usage("root-1.helper-1")
            .await
            .unwrap()
            .iter()
            .map(|u| u.input_tokens)
            .collect();
        assert_eq!(turns, [80, 160]);
        assert_eq!(store.usage("root-1").await.unwrap().len(), 2);
    });
}

#[test]
fn a_turn_limit_exits_1_saying_which() {
    let api = FakeApi::start(vec![Reply::ok("openai/one_call.json")]);
    let dir = workspace();
    let output = agent(dir.path(), &api, &["--max-turns", "1", "read the notes"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stopped: the turn limit (1) was reached"),
        "{stderr}"
    );
    assert!(stderr.contains("<- read_file (ok)"), "{stderr}");
    // Every linked tool but the chat's (this session has none), without a warning about them.
    assert!(!stderr.contains("left out"), "{stderr}");
}

#[test]
fn a_provider_error_exits_2_with_its_message() {
    let api = FakeApi::start(vec![Reply::status(404, &[], "openai/bad_request.json")]);
    let dir = workspace();
    let output = agent(dir.path(), &api, &["hi"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error: the openai API at"), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
}

#[test]
fn the_official_api_without_its_key_is_a_usage_error() {
    let dir = workspace();
    let output = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir.path())
        .args([
            "agent",
            "--provider",
            "openai",
            "--model",
            "gpt-4.1",
            "--root",
            "w",
            "hi",
        ])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`OPENAI_API_KEY`, which is not set"),
        "{stderr}"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["agent", "--provider", "gemini", "--model", "m", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn an_endless_stream_under_a_token_budget_stops_at_once_without_a_timeout() {
    let piece = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n";
    let api = FakeApi::start(vec![Reply::endless_stream("", piece)]);
    let dir = workspace();
    let started = std::time::Instant::now();
    let output = agent(dir.path(), &api, &["--max-tokens", "100", "write forever"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stopped: the token budget (100) was used up (101 tokens)"),
        "{stderr}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // 101 one-token pieces were shown, and no more.
    assert_eq!(text(&output.stdout).trim_end(), "a".repeat(101));
}

#[test]
fn settings_that_would_run_nothing_are_refused() {
    let api = FakeApi::start(Vec::new());
    let dir = workspace();
    for (flag, says) in [
        (
            "--max-parallel-calls",
            "--max-parallel-calls 0 would run no tool call",
        ),
        (
            "--max-turn-bytes",
            "--max-turn-bytes 0 would cut off every answer",
        ),
    ] {
        let output = agent(dir.path(), &api, &[flag, "0", "hi"]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
    assert!(api.requests().is_empty());
}

/// `cy-tools agent` delegating to `helper`, whose model is `model` (a JSON `ModelSpec`), with
/// `extra` options; what `delegate` answered the parent's model.
fn delegated(api: &FakeApi, model: &str, extra: &[&str]) -> String {
    let dir = workspace();
    std::fs::write(
        dir.path().join("subagents.json"),
        format!(r#"[{{"name": "helper", "tools": ["read_file"], "model": {model}}}]"#),
    )
    .unwrap();
    let mut args = vec!["--subagents", "subagents.json"];
    args.extend_from_slice(extra);
    args.push("ask the helper");
    let base = format!("{}/v1", api.url());
    let output = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir.path())
        .args(["agent", "--provider", "openai", "--model", "gpt-fake"])
        .args(["--base-url", &base, "--root", "w"])
        .args(&args)
        .env("CY_TEST_AGENT_KEY", "secret")
        .env_remove("CY_TOOLS_STORE")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let requests = api.requests();
    let messages = requests.last().unwrap().body["messages"].clone();
    let result = messages
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["tool_call_id"] == "call_delegate_1")
        .unwrap()
        .clone();
    result["content"].as_str().unwrap().to_string()
}

#[test]
fn subagents_are_held_to_the_commands_turn_bounds_and_key_setting() {
    // A helper whose model is plain http:// on another machine, with a key: refused, never
    // reached (TEST-NET-1 would hang until the connect timeout).
    let api = FakeApi::start(vec![
        Reply::ok("openai/delegate_call.json"),
        Reply::ok("openai/after_tools.json"),
    ]);
    let model = r#"{"provider": "openai", "model": "m", "base_url": "http://192.0.2.7:8000/v1", "key_var": "CY_TEST_AGENT_KEY"}"#;
    let started = std::time::Instant::now();
    let answer = delegated(&api, model, &[]);
    assert!(
        answer.contains("is plain http:// to another machine")
            && answer.contains("--allow-http-key"),
        "{answer}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));

    // A helper whose answer never ends is cut off at the command's byte budget.
    let api = FakeApi::start(vec![
        Reply::ok("openai/delegate_call.json"),
        Reply::Endless {
            content_type: "application/json",
            head: "{\"choices\":[{\"message\":{\"content\":\"".to_string(),
            piece: "a".repeat(4096),
        },
        Reply::ok("openai/after_tools.json"),
    ]);
    let model = format!(
        r#"{{"provider": "openai", "model": "m", "base_url": "{}/v1"}}"#,
        api.url()
    );
    let answer = delegated(&api, &model, &["--max-turn-bytes", "65536"]);
    assert!(
        answer.contains("passed the byte budget of one turn (65536 bytes)"),
        "{answer}"
    );
}
