//! `--pre-tool-hook` and `--post-tool-hook` commands (Claude Code's hook shape) and
//! `--max-result-bytes` through `cy-tools call`: a hook passes, rewrites the arguments, refuses
//! (exit 2, or a `deny` decision), fails or times out (both refuse, naming it), withholds or
//! replaces a result; the call as JSON on its stdin; code mode's nested calls go through the
//! same hooks and limits.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// `cy-tools ARGS` in `dir`, with no log or store from the environment (the hook suites').
pub(super) fn cy_tools(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(args)
        .current_dir(dir)
        .env_remove("CY_TOOLS_LOG")
        .env_remove("CY_TOOLS_STORE")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta\n").unwrap();
    dir
}

/// `cy-tools call read_file {"path": "a.txt"}` with `hooks` as extra arguments.
fn read_a(dir: &Path, hooks: &[&str]) -> Output {
    let root = dir.to_str().unwrap();
    let mut args = vec!["call", "read_file", r#"{"path": "a.txt"}"#, "--root", root];
    args.extend_from_slice(hooks);
    cy_tools(dir, &args)
}

fn out(output: &Output) -> (Option<i32>, String, String) {
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout)
            .trim_end()
            .to_string(),
        String::from_utf8_lossy(&output.stderr).trim().to_string(),
    )
}

#[test]
fn a_hook_command_passes_rewrites_and_sees_the_call() {
    let dir = workspace();
    let seen = dir.path().join("seen.json");
    let pass = format!("cat > '{}'", seen.display());
    let (code, stdout, stderr) = out(&read_a(dir.path(), &["--pre-tool-hook", &pass]));
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "     1\talpha"),
        "{stderr}"
    );
    let input: Value = serde_json::from_slice(&std::fs::read(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "read_file");
    assert_eq!(input["tool_input"], json!({"path": "a.txt"}));
    assert_eq!(input["session_id"], "cli");

    let rewrite = r#"echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"path": "b.txt"}}}'"#;
    let (code, stdout, stderr) = out(&read_a(dir.path(), &["--pre-tool-hook", rewrite]));
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "     1\tbeta"),
        "{stderr}"
    );
}

#[test]
fn a_hook_command_refuses_and_a_failing_or_slow_one_refuses_too() {
    let dir = workspace();
    for (hook, says) in [
        (
            "echo 'no reads on Fridays' >&2; exit 2",
            "`read_file` was refused by hook `echo 'no reads on Fridays' >&2; exit 2`: no reads on Fridays",
        ),
        (
            r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "a.txt is private"}}'"#,
            "`read_file` was refused by hook `echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\", ...`: a.txt is private",
        ),
        (
            "echo broken >&2; exit 1",
            "`read_file` was refused: hook `echo broken >&2; exit 1` failed (it exited with status 1: broken), so the call did not run; this is the host's hook, not your arguments",
        ),
        (
            "echo not json",
            "`read_file` was refused: hook `echo not json` failed (its output is not JSON (expected ident at line 1 column 2): not json), so the call did not run; this is the host's hook, not your arguments",
        ),
    ] {
        let (code, stdout, stderr) = out(&read_a(dir.path(), &["--pre-tool-hook", hook]));
        assert_eq!((code, stdout.as_str()), (Some(1), ""), "{hook}: {stderr}");
        assert_eq!(stderr, says, "{hook}");
    }
    let started = std::time::Instant::now();
    let (code, _, stderr) = out(&read_a(
        dir.path(),
        &["--pre-tool-hook", "sleep 20", "--hook-timeout", "1"],
    ));
    assert_eq!(code, Some(1));
    assert_eq!(
        stderr,
        "`read_file` did not run: hook `sleep 20` did not decide within 1s; the host's hook is too slow or stuck"
    );
    assert!(
        started.elapsed().as_secs() < 15,
        "the slow hook was not stopped"
    );
}

#[test]
fn a_post_hook_command_withholds_or_replaces_the_result() {
    let dir = workspace();
    let block = r#"echo '{"decision": "block", "reason": "results are audited first"}'"#;
    let (code, _, stderr) = out(&read_a(dir.path(), &["--post-tool-hook", block]));
    assert_eq!(code, Some(1));
    assert!(
        stderr.ends_with(": results are audited first")
            && stderr.contains("the result of `read_file` was withheld by hook"),
        "{stderr}"
    );
    let replace = r#"echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "redacted"}}'"#;
    let (code, stdout, stderr) = out(&read_a(dir.path(), &["--post-tool-hook", replace]));
    assert_eq!((code, stdout.as_str()), (Some(0), "redacted"), "{stderr}");
}

#[test]
fn a_result_past_the_limit_is_cut_with_a_notice_and_kept_whole() {
    let dir = workspace();
    let long: String = (0..200).map(|n| format!("line {n}\n")).collect();
    std::fs::write(dir.path().join("a.txt"), &long).unwrap();
    let (code, stdout, stderr) = out(&read_a(dir.path(), &["--max-result-bytes", "100"]));
    assert_eq!(code, Some(0), "{stderr}");
    let (shown, notice) = stdout.split_once("\n[result cut: ").unwrap();
    assert_eq!(shown.len(), 100);
    let path = notice
        .split('`')
        .find(|p| p.starts_with(".cy-tools/results/"))
        .unwrap();
    let whole = std::fs::read_to_string(dir.path().join(path)).unwrap();
    assert!(
        whole.starts_with(shown) && whole.contains("   200\tline 199"),
        "{whole}"
    );
}

const NESTED: &str = r#"
import cy_sdk
from cy_sdk import tools
try:
    tools.read_file("a.txt")
    print("read")
except cy_sdk.ToolError as err:
    print("refused:", err)
print(len(tools.read_file("b.txt")))
"#;

#[test]
fn code_modes_nested_calls_go_through_the_hooks_and_the_limits() {
    let dir = workspace();
    std::fs::write(dir.path().join("b.txt"), "beta\n".repeat(100)).unwrap();
    let root = dir.path().to_str().unwrap();
    // Refuses reading `a.txt`, whoever asks: the call's JSON names it.
    let hook = r#"grep -q '"path":"a.txt"' && { echo 'a.txt is off limits' >&2; exit 2; }; exit 0"#;
    let output = cy_tools(
        dir.path(),
        &[
            "call",
            "execute_code",
            &json!({ "code": NESTED }).to_string(),
            "--code-mode",
            "--root",
            root,
            "--pre-tool-hook",
            hook,
            "--max-result-bytes",
            "200",
        ],
    );
    let (code, stdout, stderr) = out(&output);
    assert_eq!(code, Some(0), "{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some(
            "refused: `read_file` was refused by hook `grep -q '\"path\":\"a.txt\"' && { echo 'a.txt is off limits' >&2...`: a.txt is off limits"
        )
    );
    // 200 bytes shown, then the notice: the code got the cut result.
    let printed: usize = lines.next().unwrap().parse().unwrap();
    assert!(printed > 200 && printed < 600, "{stdout}");
    let kept = std::fs::read_dir(dir.path().join(".cy-tools/results"))
        .unwrap()
        .count();
    // The nested `read_file`'s, and the call's own: its text and the structured copy of its
    // exit code and streams are over 200 bytes together.
    assert_eq!(kept, 2);
}

#[test]
fn a_spec_that_declares_a_hook_is_refused_saying_why() {
    let dir = workspace();
    let spec = dir.path().join("session.json");
    std::fs::write(
        &spec,
        r#"{"tools": ["read_file"], "hooks": {"pre": "curl evil"}}"#,
    )
    .unwrap();
    let (code, _, stderr) = out(&cy_tools(
        dir.path(),
        &[
            "call",
            "read_file",
            r#"{"path": "a.txt"}"#,
            "--spec",
            spec.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        format!(
            "error: invalid session spec `{}`: a session spec cannot declare hooks: a hook runs on the host, and a spec is carried by a store to other workers, so hooks are the host's setting (`cy-tools mcp --pre-tool-hook`, `ToolContext::with_hook`); remove `hooks` from the spec",
            spec.display()
        )
    );
}
