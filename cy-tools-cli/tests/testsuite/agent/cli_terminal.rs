//! `cy-tools agent` and the person at its terminal (a pseudo-terminal from util-linux's
//! `script`): a call its `--approve` (or its spec's `approve`) names is asked about there, and
//! refused when there is no terminal to ask on; the model's text and the tools' output reach a
//! terminal with their control sequences escaped (a pipe gets them as they are); and the key
//! is not sent over plain http:// to another machine.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::fake_model::{FakeApi, Reply};

/// `cy-tools agent` against `api` in `dir` (workspace `w`), then `extra`.
fn agent_args(api: &FakeApi, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "agent",
        "--provider",
        "openai",
        "--model",
        "gpt-fake",
        "--base-url",
        &format!("{}/v1", api.url()),
        "--root",
        "w",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// Runs `cy-tools ARGS` under `script`, so its stdin, stdout and stderr are a terminal, with
/// `typed` written to that terminal; what the terminal showed is the output's stdout.
fn at_terminal(dir: &Path, args: &[String], typed: &str) -> Output {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_cy-tools"))
        .chain(args.iter().map(String::as_str))
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mut child = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`script` (util-linux) runs: the terminal tests need it");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(typed.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The same with pipes for stdin, stdout and stderr.
fn piped(dir: &Path, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir)
        .args(args)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An OpenAI answer calling `tool` with `arguments`, then (as the next reply) the final answer
/// `answer`.
pub(super) fn call_then_answer(
    tool: &str,
    arguments: serde_json::Value,
    answer: &str,
) -> Vec<Reply> {
    let call = json!({"id": "x", "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
            "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": tool, "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10}});
    let done = json!({"id": "y", "object": "chat.completion", "model": "gpt-fake",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": answer}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5}});
    [call, done]
        .into_iter()
        .map(|body| Reply::Json {
            status: 200,
            headers: Vec::new(),
            body: body.to_string(),
        })
        .collect()
}

fn write_call() -> Vec<Reply> {
    call_then_answer(
        "write_file",
        json!({"path": "a.txt", "content": "hi"}),
        "I tried.",
    )
}

/// What the model was told of its call.
fn tool_message(api: &FakeApi) -> String {
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let messages = requests[1].body["messages"].as_array().unwrap().clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    tool["content"].as_str().unwrap().to_string()
}

#[test]
fn at_a_terminal_a_call_its_policy_names_is_asked_about_and_runs_only_on_yes() {
    let dir = workspace();

    let api = FakeApi::start(write_call());
    let output = at_terminal(
        dir.path(),
        &agent_args(&api, &["--approve", "all", "write"]),
        "n\n",
    );
    let seen = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{seen:?}");
    assert!(seen.contains("Allow `write_file`"), "{seen:?}");
    assert!(seen.contains("[y/N] "), "{seen:?}");
    assert!(!dir.path().join("w/a.txt").exists());
    let told = tool_message(&api);
    assert!(
        told.contains("was not run: terminal user `") && told.contains("declined it"),
        "{told}"
    );

    let api = FakeApi::start(write_call());
    let output = at_terminal(
        dir.path(),
        &agent_args(&api, &["--approve", "all", "write"]),
        "y\n",
    );
    let seen = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{seen:?}");
    assert!(seen.contains("Allow `write_file`"), "{seen:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("w/a.txt")).unwrap(),
        "hi"
    );
}

#[test]
fn without_a_terminal_a_call_that_needs_approval_is_refused_never_run() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("spec.json"),
        r#"{"approve": "destructive"}"#,
    )
    .unwrap();
    for extra in [
        &["--approve", "all"][..],
        &["--approve", "destructive"][..],
        &["--spec", "spec.json"][..],
    ] {
        let api = FakeApi::start(write_call());
        let mut args = extra.to_vec();
        args.push("write");
        let output = piped(dir.path(), &agent_args(&api, &args));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{extra:?}: {stderr}");
        assert!(
            stderr.contains("<- write_file (error)"),
            "{extra:?}: {stderr}"
        );
        assert!(!dir.path().join("w/a.txt").exists(), "{extra:?}");
        let told = tool_message(&api);
        assert!(
            told.contains("was not run: it needs a person's approval")
                && told.contains("has no terminal to ask on")
                && told.contains("`--approve none`"),
            "{extra:?}: {told}"
        );
    }
    // Asked for nothing, it runs.
    let api = FakeApi::start(write_call());
    let output = piped(dir.path(), &agent_args(&api, &["write"]));
    assert_eq!(output.status.code(), Some(0));
    assert!(dir.path().join("w/a.txt").exists());
}

#[test]
fn control_sequences_reach_a_terminal_escaped_and_a_pipe_as_they_are() {
    let dir = workspace();
    // The tool's output and the model's answer each write the clipboard (OSC 52) and clear the
    // screen.
    let replies = || {
        call_then_answer(
            "terminal",
            json!({"command": r"printf 'out\033]52;c;aGk=\007\033[2Jtail'"}),
            "done \u{1b}]52;c;aGVsbG8=\u{7} \u{1b}[2J\r end",
        )
    };
    let api = FakeApi::start(replies());
    let output = at_terminal(dir.path(), &agent_args(&api, &["run it"]), "");
    let seen = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{seen:?}");
    assert!(!seen.contains('\u{1b}'), "{seen:?}");
    assert!(
        seen.contains(r"done \x1b]52;c;aGVsbG8=\x07 \x1b[2J\r end"),
        "{seen:?}"
    );
    assert!(
        seen.contains(r"out\x1b]52;c;aGk=\x07\x1b[2Jtail"),
        "{seen:?}"
    );

    let api = FakeApi::start(replies());
    let output = piped(dir.path(), &agent_args(&api, &["run it"]));
    assert_eq!(output.status.code(), Some(0));
    assert!(
        text(&output.stdout).contains("done \u{1b}]52;c;aGVsbG8=\u{7} \u{1b}[2J\r end"),
        "{:?}",
        text(&output.stdout)
    );
}

#[test]
fn the_key_is_refused_over_plain_http_to_another_machine_naming_the_flag() {
    let dir = workspace();
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir.path())
        .args([
            "agent",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            // TEST-NET-1: nothing answers there, so a request would hang until its timeout.
            "http://192.0.2.7:8000/v1",
            "--key-var",
            "CY_TEST_AGENT_KEY",
            "--root",
            "w",
            "hi",
        ])
        .env("CY_TEST_AGENT_KEY", "secret")
        .env_remove("CY_TOOLS_STORE")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is plain http:// to another machine, so the API key would cross the network unencrypted")
            && stderr.contains("--allow-http-key"),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn the_calls_a_stored_code_mode_sessions_code_makes_are_asked_about_too() {
    let dir = workspace();
    std::fs::write(
        dir.path().join("s.json"),
        r#"{"session_id": "s-code", "workspace": "w", "code_mode": true}"#,
    )
    .unwrap();
    // The session is stored in code mode first, by `call`.
    let created = Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .current_dir(dir.path())
        .args(["call", "list_directory", "{}", "--spec", "s.json"])
        .args(["--store", "store"])
        .env_remove("CY_TOOLS_STORE")
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", text(&created.stderr));
    let code = "import cy_sdk\ntry:\n    cy_sdk.tools.write_file('a.txt', content='hi')\nexcept cy_sdk.ToolError as err:\n    print('refused:', err)";
    let api = FakeApi::start(call_then_answer(
        "execute_code",
        json!({ "code": code }),
        "I tried.",
    ));
    let args = agent_args(
        &api,
        &[
            "--spec",
            "s.json",
            "--store",
            "store",
            "--approve",
            "destructive",
            "write",
        ],
    );
    // `execute_code` approved, the `write_file` its code makes declined.
    let output = at_terminal(dir.path(), &args, "y\nn\n");
    let seen = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{seen:?}");
    assert!(seen.contains("Allow `execute_code`"), "{seen:?}");
    assert!(seen.contains("Allow `write_file`"), "{seen:?}");
    assert!(!dir.path().join("w/a.txt").exists());
    let told = tool_message(&api);
    assert!(
        told.contains("refused: the call to `write_file` was not run: terminal user `"),
        "{told}"
    );
}
