//! The `terminal` tool through `BoundTool::execute`: the exact text the model sees for every
//! way a command can end, and for every mistake in a call: on each workspace backend, the
//! local sandbox and the remote one (a control server on loopback), with the same bodies.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cy_tools::memory::MemorySandbox;
use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolRegistry, ToolResult,
    binding::bind_tool,
};
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::tools::terminal::TERMINAL;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::backend::{Backend, on_each_backend};
use crate::support::workspace::{self, Workspace};

/// The workspace folder of a test, on its backend.
struct Dir {
    _tmp: TempDir,
    workspace: Workspace,
}

impl Dir {
    fn path(&self) -> &std::path::Path {
        &self.workspace.folder
    }
}

fn terminal_with(backend: Backend, limits: ExecLimits) -> (Dir, BoundTool) {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = workspace::open_with(backend, tmp.path(), "s-1", limits);
    let context =
        ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::clone(&workspace.env));
    let tool = bind_tool(&TERMINAL, context).unwrap();
    (
        Dir {
            _tmp: tmp,
            workspace,
        },
        tool,
    )
}

fn terminal(backend: Backend) -> (Dir, BoundTool) {
    terminal_with(backend, ExecLimits::default())
}

async fn call(tool: &BoundTool, args: Value) -> ToolResult {
    tool.execute(ToolCall::new("call-1", args), &CancellationToken::new())
        .await
}

/// The text of a command that ran to its end (any exit code), checked to carry the structured
/// copy of its exit code and streams.
fn ok(result: &ToolResult) -> String {
    assert!(!result.is_error, "{}", result.text_content());
    assert!(
        crate::support::outcome::structured(result).is_some(),
        "no structured copy: {result:?}"
    );
    crate::support::outcome::text(result)
}

fn failed(result: &ToolResult) -> String {
    assert!(result.is_error, "{}", result.text_content());
    result.text_content()
}

on_each_backend! {
async fn a_successful_command_shows_exit_code_stdout_and_stderr(backend: Backend) {
    let (_dir, tool) = terminal(backend);
    let result = call(
        &tool,
        json!({"command": "echo hi; echo there; echo warn >&2"}),
    )
    .await;
    assert_eq!(
        ok(&result),
        "exit code: 0\nstdout:\nhi\nthere\nstderr:\nwarn"
    );
    let result = call(&tool, json!({"command": "true"})).await;
    assert_eq!(
        ok(&result),
        "exit code: 0\nstdout: (empty)\nstderr: (empty)"
    );
}

async fn the_command_runs_in_the_workspace_or_in_cwd(backend: Backend) {
    let (dir, tool) = terminal(backend);
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src/app")).unwrap();
    let result = call(&tool, json!({"command": "pwd"})).await;
    assert_eq!(
        ok(&result),
        format!("exit code: 0\nstdout:\n{}\nstderr: (empty)", root.display())
    );
    let result = call(
        &tool,
        json!({"command": "pwd; touch made", "cwd": "src/app"}),
    )
    .await;
    assert_eq!(
        ok(&result),
        format!(
            "exit code: 0\nstdout:\n{}/src/app\nstderr: (empty)",
            root.display()
        )
    );
    assert!(root.join("src/app/made").exists());
}

async fn a_non_zero_exit_is_a_normal_result_with_the_code_and_the_output(backend: Backend) {
    // The command ran: its exit code is the answer (`grep` found nothing, a test failed), not
    // a failure of the tool, which agent frameworks would retry or give up on.
    let (_dir, tool) = terminal(backend);
    let result = call(&tool, json!({"command": "echo out; echo bad >&2; exit 2"})).await;
    assert_eq!(
        ok(&result),
        "exit code: 2\nstdout:\nout\nstderr:\nbad"
    );
    assert_eq!(
        crate::support::outcome::structured(&result).unwrap(),
        &json!({"exit_code": 2, "stdout": "out\n", "stderr": "bad\n", "truncated": false})
    );
    let result = call(&tool, json!({"command": "printf 'a\\nb\\n' | grep -x c"})).await;
    assert_eq!(ok(&result), "exit code: 1\nstdout: (empty)\nstderr: (empty)");
}

async fn a_command_killed_by_a_signal_is_an_error(backend: Backend) {
    let (_dir, tool) = terminal(backend);
    let result = call(&tool, json!({"command": "kill -9 $$"})).await;
    assert_eq!(
        failed(&result),
        "the command was killed by a signal\nstdout: (empty)\nstderr:\n[the command was killed by signal 9 (SIGKILL): something outside the command killed it, or the host ran out of memory]"
    );
}

async fn a_timeout_is_an_error_with_the_output_so_far(backend: Backend) {
    let (_dir, tool) = terminal(backend);
    let started = Instant::now();
    let result = call(
        &tool,
        json!({"command": "echo started; echo note >&2; sleep 30", "timeout": 1}),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        failed(&result),
        "the command timed out after 1s and was killed, with every process it started; its output until then is below. Give it a longer `timeout`, or start long work in the background with the `process` tool\nstdout:\nstarted\nstderr:\nnote"
    );

    let (_dir, tool) = terminal_with(backend, ExecLimits {
        default_timeout: Duration::from_millis(300),
        ..ExecLimits::default()
    });
    let result = call(&tool, json!({"command": "sleep 30"})).await;
    assert_eq!(
        failed(&result),
        "the command timed out at the workspace's default timeout and was killed, with every process it started; its output until then is below. Give it a longer `timeout`, or start long work in the background with the `process` tool\nstdout: (empty)\nstderr: (empty)"
    );
}

async fn long_output_is_cut_with_a_notice(backend: Backend) {
    let (_dir, tool) = terminal_with(backend, ExecLimits {
        output_limit: 10,
        ..ExecLimits::default()
    });
    let result = call(&tool, json!({"command": "echo 0123456789abcdef"})).await;
    assert_eq!(
        ok(&result),
        "exit code: 0\nstdout:\n0123456789\n[output cut: showed the first 10 of 17 bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]\nstderr: (empty)"
    );
}

async fn cancelling_the_call_kills_the_command_and_what_it_started(backend: Backend) {
    let (dir, tool) = terminal(backend);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let pid_file = dir.path().join("child.pid");
    let watcher = {
        let pid_file = pid_file.clone();
        tokio::spawn(async move {
            let until = Instant::now() + Duration::from_secs(5);
            loop {
                if let Ok(pid) = std::fs::read_to_string(&pid_file)
                    && let Ok(pid) = pid.trim().parse::<u32>()
                {
                    trigger.cancel();
                    return pid;
                }
                assert!(Instant::now() < until, "the command never started");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let result = tool
        .execute(
            ToolCall::new(
                "call-1",
                json!({"command": "sh -c 'echo $$ > child.pid; exec sleep 30' & wait"}),
            ),
            &cancel,
        )
        .await;
    assert_eq!(
        failed(&result),
        "the call to `terminal` was cancelled before it finished and was stopped; call it again if the result is still needed"
    );
    let pid = watcher.await.unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    // Gone, or a zombie left for its new parent to reap: either way no longer running.
    while let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        if stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'))
        {
            break;
        }
        assert!(
            Instant::now() < until,
            "process {pid} survived the cancelled call"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

async fn mistakes_in_the_call_are_explained(backend: Backend) {
    let (dir, tool) = terminal(backend);
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let cases = [
        (
            json!({"command": "  "}),
            "`command` is empty; pass the shell command to run, such as `ls -la`",
        ),
        (
            json!({"command": "ls", "timeout": 0}),
            "`timeout` must be at least 1 second; leave it out for the workspace's default",
        ),
        (
            json!({"command": "ls", "cwd": "missing"}),
            "no file or folder `missing` in the workspace; list the folder to see what is there",
        ),
        (
            json!({"command": "ls", "cwd": "notes.txt"}),
            "working directory `notes.txt` is not a folder",
        ),
        (
            json!({"command": "ls", "cwd": "../elsewhere"}),
            "path `../elsewhere` is outside the workspace; use a path relative to the workspace root (or under `/workspace/`)",
        ),
        (
            json!({"command": "echo a\u{0}b"}),
            "the command contains a NUL byte; remove it",
        ),
        (
            json!({"cmd": "ls"}),
            "invalid arguments for `terminal`: unknown field `cmd`; valid fields are `command` (string, required), `cwd` (string or null), `timeout` (integer or null)",
        ),
        (
            json!({"command": "ls", "timeout": "5s"}),
            "invalid arguments for `terminal`: `timeout`: \"5s\" is not of types \"null\", \"integer\"; valid fields are `command` (string, required), `cwd` (string or null), `timeout` (integer or null)",
        ),
    ];
    for (args, expected) in cases {
        let result = call(&tool, args.clone()).await;
        assert_eq!(failed(&result), expected, "for {args}");
    }
}
}

#[tokio::test]
async fn a_workspace_that_runs_no_commands_says_so() {
    // The in-memory sandbox cannot run commands; the tool passes its refusal on unchanged.
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(Arc::new(MemorySandbox::new()));
    let tool = bind_tool(&TERMINAL, context).unwrap();
    let result = call(&tool, json!({"command": "ls"})).await;
    assert_eq!(
        failed(&result),
        "this workspace runs no commands (it is an in-memory sandbox); use the file tools instead"
    );
}

#[test]
fn the_tool_is_registered_needs_only_env_and_is_annotated_truthfully() {
    let registry = ToolRegistry::linked().unwrap();
    assert!(registry.names().contains(&"terminal"));
    use cy_tools::definition::Definition;
    assert_eq!(TERMINAL.capabilities().to_string(), "env");
    let annotations = TERMINAL.annotations();
    assert!(annotations.open_world);
    assert!(annotations.destructive);
    assert!(!annotations.read_only);
    assert!(!annotations.idempotent);
    assert_eq!(TERMINAL.timeout(), None);

    // A session without a workspace does not get the tool.
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"));
    assert!(bind_tool(&TERMINAL, context).is_err());
}

#[tokio::test]
async fn a_library_progress_callback_gets_the_lines_written_so_far() {
    // Local only: a remote workspace's commands do not stream their line count back.
    let (_dir, tool) = terminal_with(Backend::Local, ExecLimits::default());
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let call = ToolCall::new(
        "c1",
        json!({"command": "for i in 1 2 3 4; do echo $i; sleep 0.3; done"}),
    )
    .with_progress(Arc::new(move |p: cy_tools::call::Progress| {
        sink.lock()
            .unwrap()
            .push((p.done, p.message.unwrap_or_default()));
    }));
    let result = tool.execute(call, &CancellationToken::new()).await;
    assert!(!result.is_error, "{}", result.text_content());
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 3, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
    assert_eq!(seen[0], (1.0, "1 line of output so far".to_string()));
    assert_eq!(
        seen.last().unwrap(),
        &(4.0, "4 lines of output so far".to_string())
    );
}
