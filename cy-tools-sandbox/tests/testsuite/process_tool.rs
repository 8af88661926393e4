//! The `process` tool through `BoundTool::execute`: each action's happy path and each mistake,
//! with the exact text the model sees, on each workspace backend: the local sandbox, and the
//! remote one (a control server on loopback, which keeps the processes), with the same bodies.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cy_tools::definition::Definition;
use cy_tools::memory::MemorySandbox;
use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, ToolRegistry, ToolResult,
    binding::bind_tool, services::Sandbox,
};
use cy_tools_sandbox::ExecLimits;
use cy_tools_sandbox::tools::process::PROCESS;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::support::backend::{Backend, on_each_backend};
use crate::support::workspace::{self, Workspace};

struct Session {
    dir: Dir,
    env: Arc<dyn Sandbox>,
    tool: BoundTool,
}

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

fn session_with(backend: Backend, limits: ExecLimits) -> Session {
    let tmp = tempfile::tempdir().unwrap();
    let workspace = workspace::open_with(backend, tmp.path(), "s-1", limits);
    let env = Arc::clone(&workspace.env);
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::clone(&env));
    let tool = bind_tool(&PROCESS, context).unwrap();
    Session {
        dir: Dir {
            _tmp: tmp,
            workspace,
        },
        env,
        tool,
    }
}

fn session(backend: Backend) -> Session {
    session_with(backend, ExecLimits::default())
}

impl Session {
    async fn call(&self, args: Value) -> ToolResult {
        self.tool
            .execute(ToolCall::new("call-1", args), &CancellationToken::new())
            .await
    }

    async fn ok(&self, args: Value) -> String {
        let result = self.call(args).await;
        assert!(!result.is_error, "{}", result.text_content());
        result.text_content()
    }

    async fn failed(&self, args: Value) -> String {
        let result = self.call(args).await;
        assert!(result.is_error, "{}", result.text_content());
        result.text_content()
    }

    async fn pid(&self, id: &str) -> u32 {
        self.env
            .processes()
            .unwrap()
            .status(id)
            .await
            .unwrap()
            .pid
            .unwrap()
    }

    /// Waits until process `id` has ended.
    async fn wait_end(&self, id: &str) {
        let table = self.env.processes().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        while table.status(id).await.unwrap().running {
            assert!(Instant::now() < until, "`{id}` never ended");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until file `name` exists in the workspace.
    async fn wait_file(&self, name: &str) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(text) = std::fs::read_to_string(self.dir.path().join(name))
                && text.ends_with('\n')
            {
                return text;
            }
            assert!(Instant::now() < until, "`{name}` never appeared");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

on_each_backend! {
async fn start_status_write_output_and_list(backend: Backend) {
    let s = session(backend);
    assert_eq!(
        s.ok(json!({"action": "list"})).await,
        "no background processes in this session; start one with action `start`"
    );
    let cmd = "echo ready; echo warn >&2; read x; echo got $x";
    let started = s.ok(json!({"action": "start", "command": cmd})).await;
    let pid = s.pid("p1").await;
    assert_eq!(
        started,
        format!(
            "started `p1` (pid {pid}): `{cmd}`\nread what it writes with action `output` and id `p1`"
        )
    );
    // It waits for a line of input, so it is still running.
    assert_eq!(
        s.ok(json!({"action": "status", "id": "p1"})).await,
        format!("`p1` is running (pid {pid}): `{cmd}`")
    );
    assert_eq!(
        s.ok(json!({"action": "write", "id": "p1", "input": "hello\n"}))
            .await,
        "wrote 6 bytes to the standard input of `p1`; read its reply with action `output`"
    );
    s.wait_end("p1").await;
    assert_eq!(
        s.ok(json!({"action": "output", "id": "p1"})).await,
        format!("`p1` exited with code 0: `{cmd}`\nstdout:\nready\ngot hello\nstderr:\nwarn")
    );
    // Everything was read: nothing is new.
    assert_eq!(
        s.ok(json!({"action": "output", "id": "p1"})).await,
        format!(
            "`p1` exited with code 0: `{cmd}`\nstdout: (no new output)\nstderr: (no new output)"
        )
    );

    s.ok(json!({"action": "start", "command": "exit 4", "cwd": "."}))
        .await;
    s.wait_end("p2").await;
    assert_eq!(
        s.ok(json!({"action": "status", "id": "p2"})).await,
        "`p2` exited with code 4: `exit 4`"
    );
    s.ok(json!({"action": "start", "command": "sleep 30"}))
        .await;
    let pid3 = s.pid("p3").await;
    assert_eq!(
        s.ok(json!({"action": "list"})).await,
        format!(
            "`p1` exited with code 0: `{cmd}`\n`p2` exited with code 4: `exit 4`\n`p3` is running (pid {pid3}): `sleep 30`"
        )
    );
}

async fn output_reports_dropped_bytes(backend: Backend) {
    let s = session_with(backend, ExecLimits {
        process_buffer: 8,
        ..ExecLimits::default()
    });
    s.ok(json!({"action": "start", "command": "echo 0123456789abcdef"}))
        .await;
    s.wait_end("p1").await;
    assert_eq!(
        s.ok(json!({"action": "output", "id": "p1"})).await,
        "`p1` exited with code 0: `echo 0123456789abcdef`\n[9 bytes of older output were dropped before they were read; read the output more often]\nstdout:\n9abcdef\nstderr: (no new output)"
    );
}

async fn kill_stops_the_process_and_everything_it_started(backend: Backend) {
    let s = session(backend);
    s.ok(
        json!({"action": "start", "command": "sh -c 'echo $$ > child.pid; exec sleep 30' & wait"}),
    )
    .await;
    let child: u32 = s.wait_file("child.pid").await.trim().parse().unwrap();
    assert_eq!(
        s.ok(json!({"action": "kill", "id": "p1"})).await,
        "killed `p1` and every process it started: `sh -c 'echo $$ > child.pid; exec sleep 30' & wait`"
    );
    let until = Instant::now() + Duration::from_secs(5);
    while let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) {
        if stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'))
        {
            break;
        }
        assert!(Instant::now() < until, "process {child} survived kill");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        s.ok(json!({"action": "status", "id": "p1"})).await,
        "`p1` was killed by a signal: `sh -c 'echo $$ > child.pid; exec sleep 30' & wait`"
    );
    assert_eq!(
        s.ok(json!({"action": "output", "id": "p1"})).await,
        "`p1` was killed by a signal: `sh -c 'echo $$ > child.pid; exec sleep 30' & wait`\nstdout: (no new output)\nstderr:\n[the process was killed by signal 9]"
    );
    assert_eq!(
        s.ok(json!({"action": "kill", "id": "p1"})).await,
        "`p1` was killed by a signal: `sh -c 'echo $$ > child.pid; exec sleep 30' & wait`; nothing to kill"
    );
    s.ok(json!({"action": "start", "command": "true"})).await;
    s.wait_end("p2").await;
    assert_eq!(
        s.ok(json!({"action": "kill", "id": "p2"})).await,
        "`p2` exited with code 0: `true`; nothing to kill"
    );
}

async fn missing_and_extra_fields_are_explained(backend: Backend) {
    let s = session(backend);
    let cases = [
        (
            json!({"action": "start"}),
            "action `start` needs `command`: the shell command to run in the background",
        ),
        (
            json!({"action": "start", "command": " "}),
            "`command` is empty; pass the shell command to run, such as `npm run dev`",
        ),
        (
            json!({"action": "status"}),
            "action `status` needs `id`: the id `start` returned, such as `p1` (action `list` shows them)",
        ),
        (
            json!({"action": "output"}),
            "action `output` needs `id`: the id `start` returned, such as `p1` (action `list` shows them)",
        ),
        (
            json!({"action": "kill"}),
            "action `kill` needs `id`: the id `start` returned, such as `p1` (action `list` shows them)",
        ),
        (
            json!({"action": "write", "input": "x"}),
            "action `write` needs `id`: the id `start` returned, such as `p1` (action `list` shows them)",
        ),
        (
            json!({"action": "write", "id": "p1"}),
            "action `write` needs `input`: the text to send to standard input",
        ),
        (
            json!({"action": "write", "id": "p1", "input": ""}),
            "`input` is empty; pass the text to send, ending a line with `\\n`",
        ),
        (
            json!({"action": "status", "id": "p1", "input": "x"}),
            "`input` is not used by action `status`; action `status` takes only `id`",
        ),
        (
            json!({"action": "start", "command": "ls", "id": "p1"}),
            "`id` is not used by action `start`; action `start` takes only `command` and `cwd`",
        ),
        (
            json!({"action": "write", "id": "p1", "input": "x", "cwd": "."}),
            "`cwd` is not used by action `write`; action `write` takes only `id` and `input`",
        ),
        (
            json!({"action": "list", "command": "ls"}),
            "`command` is not used by action `list`; action `list` takes no other field",
        ),
        (
            json!({"action": "restart", "id": "p1"}),
            "invalid arguments for `process`: `action`: unknown value `restart`, expected one of `start`, `status`, `output`, `write`, `kill`, `list`; valid fields are `action` (one of `start`, `status`, `output`, `write`, `kill` or `list`, required), `command` (string or null), `cwd` (string or null), `id` (string or null), `input` (string or null)",
        ),
        (
            json!({"id": "p1"}),
            "invalid arguments for `process`: missing required field `action`; valid fields are `action` (one of `start`, `status`, `output`, `write`, `kill` or `list`, required), `command` (string or null), `cwd` (string or null), `id` (string or null), `input` (string or null)",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(s.failed(args.clone()).await, expected, "for {args}");
    }
    // Null stands for a field left out.
    assert_eq!(
        s.ok(json!({"action": "list", "command": null, "id": null}))
            .await,
        "no background processes in this session; start one with action `start`"
    );
}

async fn unknown_ids_bad_folders_and_ended_processes_are_explained(backend: Backend) {
    let s = session(backend);
    std::fs::write(s.dir.path().join("notes.txt"), "x").unwrap();
    for action in ["status", "output", "kill"] {
        assert_eq!(
            s.failed(json!({"action": action, "id": "p1"})).await,
            "no background process `p1` in this session (none has been started yet); use an id that starting a process returned"
        );
    }
    assert_eq!(
        s.failed(json!({"action": "start", "command": "ls", "cwd": "notes.txt"}))
            .await,
        "working directory `notes.txt` is not a folder"
    );
    assert_eq!(
        s.failed(json!({"action": "start", "command": "ls", "cwd": "/etc"}))
            .await,
        "path `/etc` is outside the workspace; use a path relative to the workspace root (or under `/workspace/`)"
    );
    s.ok(json!({"action": "start", "command": "true"})).await;
    s.wait_end("p1").await;
    assert_eq!(
        s.failed(json!({"action": "write", "id": "p2", "input": "x"}))
            .await,
        "no background process `p2` in this session (its processes are `p1`); use an id that starting a process returned"
    );
    assert_eq!(
        s.failed(json!({"action": "write", "id": "p1", "input": "x\n"}))
            .await,
        "process `p1` has exited, so it reads no more input; start it again to send it input"
    );
}
}

#[tokio::test]
async fn a_workspace_without_background_processes_says_so() {
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(Arc::new(MemorySandbox::new()));
    let tool = bind_tool(&PROCESS, context).unwrap();
    let result = tool
        .execute(
            ToolCall::new("call-1", json!({"action": "list"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        format!(
            "this workspace ({}) cannot run background processes; use the `terminal` tool for one-off commands",
            MemorySandbox::new().describe()
        )
    );
}

#[test]
fn the_tool_is_registered_needs_only_env_and_is_annotated_truthfully() {
    let registry = ToolRegistry::linked().unwrap();
    assert!(registry.names().contains(&"process"));
    assert_eq!(PROCESS.capabilities().to_string(), "env");
    let annotations = PROCESS.annotations();
    assert!(annotations.open_world);
    assert!(annotations.destructive);
    assert!(!annotations.read_only);
    assert!(!annotations.idempotent);
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"));
    assert!(bind_tool(&PROCESS, context).is_err());
}
