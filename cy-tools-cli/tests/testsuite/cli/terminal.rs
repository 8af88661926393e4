//! `cy-tools call` at a terminal (a pseudo-terminal from util-linux's `script`): a progress line
//! on stderr while the call runs, erased before the result; a call that needs approval asked on
//! the terminal, run on `y` and not on `n`. Without a terminal neither happens (the other CLI
//! tests run with pipes, and their output has no progress line).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `cy-tools ARGS` under `script`, so its stdin, stdout and stderr are a terminal, with
/// `typed` written to that terminal.
fn at_terminal(dir: &Path, args: &[&str], typed: &str) -> Output {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_cy-tools"))
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mut child = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
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

#[test]
fn a_long_call_shows_a_progress_line_that_is_erased_before_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let code = "import time\nfor i in range(4):\n    print(i, flush=True)\n    time.sleep(0.3)";
    let args = json_args(code);
    let output = at_terminal(
        dir.path(),
        &["call", "execute_code", &args, "--root", "."],
        "",
    );
    let seen = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{seen}");
    assert!(
        seen.contains("\r\x1b[2Kexecute_code: 1 line of output so far"),
        "{seen:?}"
    );
    assert!(
        seen.contains("\r\x1b[2Kexecute_code: 3 lines of output so far"),
        "{seen:?}"
    );
    // Erased, then the result on a clean line.
    assert!(seen.ends_with("\r\x1b[2K0\r\n1\r\n2\r\n3\r\n"), "{seen:?}");
}

fn json_args(code: &str) -> String {
    serde_json::json!({ "code": code }).to_string()
}

#[test]
fn a_call_that_needs_approval_is_asked_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let args = r#"{"path": "a.txt", "content": "hi"}"#;
    let call = [
        "call",
        "write_file",
        args,
        "--root",
        ".",
        "--approve",
        "destructive",
    ];

    let output = at_terminal(dir.path(), &call, "n\n");
    let seen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{seen:?}");
    assert!(
        seen.contains(r#"Allow `write_file` ("Write file") with {"content":"hi","path":"a.txt"}? (session cli, call cli-1) [y/N] "#),
        "{seen:?}"
    );
    assert!(seen.contains("was not run: terminal user `"), "{seen:?}");
    assert!(
        seen.contains("` declined it; nothing was changed"),
        "{seen:?}"
    );
    assert!(!dir.path().join("a.txt").exists());

    let output = at_terminal(dir.path(), &call, "y\n");
    let seen = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{seen:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "hi"
    );
}

#[test]
fn code_calls_of_a_stored_session_in_code_mode_are_asked_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("w")).unwrap();
    std::fs::write(
        dir.path().join("s.json"),
        r#"{"session_id": "s-ask", "workspace": "w", "code_mode": true}"#,
    )
    .unwrap();
    let code = "import cy_sdk\ntry:\n    cy_sdk.tools.write_file('a.txt', content='hi')\nexcept cy_sdk.ToolError as err:\n    print('refused:', err)";
    let args = json_args(code);
    let call = [
        "call",
        "execute_code",
        &args,
        "--spec",
        "s.json",
        "--store",
        "store",
        "--approve",
        "destructive",
    ];
    // `execute_code` approved, the `write_file` its code makes declined.
    let output = at_terminal(dir.path(), &call, "y\nn\n");
    let seen = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{seen:?}");
    assert!(seen.contains("Allow `execute_code`"), "{seen:?}");
    assert!(seen.contains("Allow `write_file`"), "{seen:?}");
    assert!(
        seen.contains("refused: the call to `write_file` was not run: terminal user `"),
        "{seen:?}"
    );
    assert!(!dir.path().join("w/a.txt").exists());
}

#[test]
fn the_question_shows_a_command_hidden_behind_a_run_of_spaces() {
    let dir = tempfile::tempdir().unwrap();
    // The attack: 600 spaces push the tail past what the question used to show (500
    // characters, cut without a word) and off the screen.
    let command = format!("echo harmless{}; touch hidden-tail.txt", " ".repeat(600));
    let args = serde_json::json!({ "command": command }).to_string();
    let call = ["call", "terminal", &args, "--root", ".", "--approve", "all"];
    let output = at_terminal(dir.path(), &call, "n\n");
    let seen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{seen:?}");
    assert!(
        seen.contains(
            r#"with {"command":"echo harmless⟨600 spaces⟩; touch hidden-tail.txt"}? (session cli, call cli-1) [y/N] "#
        ),
        "{seen:?}"
    );
    assert!(!dir.path().join("hidden-tail.txt").exists());
}

#[test]
fn a_call_too_long_to_show_whole_shows_its_length_digest_and_end() {
    let dir = tempfile::tempdir().unwrap();
    let content = format!("{}TAIL-THAT-MATTERS", "padding ".repeat(1_000));
    let args = serde_json::json!({ "path": "a.txt", "content": content });
    let json = args.to_string();
    let call = [
        "call",
        "write_file",
        &json,
        "--root",
        ".",
        "--approve",
        "all",
    ];
    let output = at_terminal(dir.path(), &call, "n\n");
    let seen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{seen:?}");
    use sha2::Digest as _;
    let digest: String = sha2::Sha256::digest(json.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(
        seen.contains(&format!(
            "arguments too long to show whole ({} bytes of JSON, sha256 {digest}): ",
            json.len()
        )),
        "{seen:?}"
    );
    assert!(
        seen.contains(r#"TAIL-THAT-MATTERS","path":"a.txt"}? (session cli, call cli-1) [y/N] "#),
        "{seen:?}"
    );
    assert!(!dir.path().join("a.txt").exists());
}
