//! Shared by `execute_code_local.rs` and `execute_code_remote.rs`: a session with the
//! `execute_code` tool on either backend, and the behaviour both must show word for word.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cy_tools::{
    AgentTool, CancellationToken, CodeExecutor, SessionIdentity, ToolCall, ToolContext, ToolResult,
    bind_tool,
};
use cy_tools_builtin::ExecLimits;
use cy_tools_builtin::LocalSandbox;
use cy_tools_builtin::control_server::{ControlServer, ControlServerConfig};
use cy_tools_builtin::executor::{LocalExecutor, RemoteExecutor};
use cy_tools_builtin::tools::execute_code::EXECUTE_CODE;
use cy_tools_builtin::tools::read_file::READ_FILE;
use serde_json::{Value, json};
use tempfile::TempDir;

pub const TOKEN: &str = "test-token-5f1c9a7e2b";
pub const SESSION: &str = "s-1";

/// A session bound to one backend: the `execute_code` tool, `read_file` on the same workspace,
/// and that workspace's host path.
pub struct Session {
    pub execute: AgentTool,
    pub read_file: AgentTool,
    pub workspace: PathBuf,
    pub server: Option<Server>,
    _dir: TempDir,
}

impl Session {
    pub async fn run(&self, args: Value) -> ToolResult {
        self.execute
            .execute(ToolCall::new("call-1", args), &CancellationToken::new())
            .await
    }

    pub async fn ok(&self, args: Value) -> String {
        let result = self.run(args).await;
        assert!(!result.is_error, "{}", result.text_content());
        result.text_content()
    }

    pub async fn failed(&self, args: Value) -> String {
        let result = self.run(args).await;
        assert!(result.is_error, "{}", result.text_content());
        result.text_content()
    }

    pub fn script(&self, name: &str) -> String {
        self.workspace.join(name).display().to_string()
    }
}

fn bind(workspace: &Path, executor: Arc<dyn CodeExecutor>) -> (AgentTool, AgentTool) {
    let env = LocalSandbox::new(workspace).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root(SESSION, "acme"))
        .with_env(Arc::new(env))
        .with_executor(executor);
    (
        bind_tool(&EXECUTE_CODE, context.clone()).unwrap(),
        bind_tool(&READ_FILE, context).unwrap(),
    )
}

/// A session whose code runs through a `LocalExecutor` on its own sandbox.
pub fn local() -> Session {
    local_with(ExecLimits::default())
}

/// The same, with runs held to `limits`.
pub fn local_with(limits: ExecLimits) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().canonicalize().unwrap();
    let env = LocalSandbox::new(&workspace)
        .unwrap()
        .with_limits(limits)
        .env();
    let executor = LocalExecutor::new(Arc::new(env));
    let (execute, read_file) = bind(&workspace, Arc::new(executor));
    Session {
        execute,
        read_file,
        workspace,
        server: None,
        _dir: dir,
    }
}

/// A control server in a runtime of its own, so a test can kill it as a crash would: every
/// task, connection and run it has stops at once.
pub struct Server {
    runtime: Option<tokio::runtime::Runtime>,
    pub addr: std::net::SocketAddr,
    pub root: PathBuf,
}

impl Server {
    pub fn start(root: &Path, tune: impl FnOnce(&mut ControlServerConfig)) -> Server {
        let mut config = ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root);
        config.token = Some(TOKEN.to_string());
        tune(&mut config);
        // Built on a thread of its own: a test's runtime cannot block on another.
        let (runtime, addr) = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let server = runtime.block_on(ControlServer::bind(config)).unwrap();
            let addr = server.local_addr().unwrap();
            runtime.spawn(server.run());
            (runtime, addr)
        })
        .join()
        .unwrap();
        Server {
            runtime: Some(runtime),
            addr,
            root: root.canonicalize().unwrap(),
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A session whose code runs on a control server on loopback, started for it.
pub fn remote() -> Session {
    remote_with(|_| {}, |executor| executor)
}

pub fn remote_with(
    tune: impl FnOnce(&mut ControlServerConfig),
    client: impl FnOnce(RemoteExecutor) -> RemoteExecutor,
) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), tune);
    let workspace = server.root.join(SESSION);
    let executor = client(RemoteExecutor::new(&server.endpoint(), SESSION, TOKEN).unwrap());
    let (execute, read_file) = bind(&workspace, Arc::new(executor));
    Session {
        execute,
        read_file,
        workspace,
        server: Some(server),
        _dir: dir,
    }
}

/// Whether process `pid` is dead: gone, or a zombie waiting for a parent that is not this
/// process. Polls for up to five seconds, since a killed process takes a moment to die.
pub fn dead(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) => {
                let state = stat.rsplit_once(") ").map(|(_, rest)| &rest[..1]);
                if state == Some("Z") || state == Some("X") {
                    return true;
                }
            }
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `file` to hold two pids, as [`FAMILY`] writes them.
pub async fn pids_in(path: &Path) -> Vec<u32> {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            let pids: Vec<u32> = text
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect();
            if pids.len() == 2 {
                return pids;
            }
        }
        assert!(
            Instant::now() < until,
            "{} never got its pids",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Python that starts a child process, records both pids in `pids.txt`, says so, then loops
/// forever.
pub const FAMILY: &str = r#"import os, subprocess
child = subprocess.Popen(["sleep", "300"])
with open("pids.txt", "w") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
print("started", flush=True)
while True:
    pass
"#;

// The behaviour both backends must show, word for word.

pub async fn prints_stdout_on_success(s: &Session) {
    assert_eq!(
        s.ok(json!({"code": "print(1 + 1)\nprint('done')"})).await,
        "2\ndone"
    );
    assert_eq!(
        s.ok(json!({"code": "x = 1"})).await,
        "(the code printed nothing)"
    );
    assert_eq!(
        s.ok(json!({"code": "import sys\nprint('ok')\nprint('careful', file=sys.stderr)"}))
            .await,
        "ok\nstderr:\ncareful"
    );
}

pub async fn an_exception_shows_its_traceback(s: &Session) {
    let code = "def f():\n    raise ValueError('bad value')\nprint('before')\nf()\n";
    let expected = |script: &str| {
        format!(
            "the code failed with exit code 1\nstdout:\nbefore\nstderr:\nTraceback (most recent call last):\n  File \"{script}\", line 4, in <module>\n    f()\n  File \"{script}\", line 2, in f\n    raise ValueError('bad value')\nValueError: bad value"
        )
    };
    assert_eq!(
        s.failed(json!({"code": code, "filename": "main.py"})).await,
        expected(&s.script("main.py"))
    );
    // Without a name, the traceback names the run's fresh file, which is gone after the run.
    let text = s.failed(json!({"code": code})).await;
    let start = text.find(&s.script(".cy-run-")).expect(&text);
    let name = &text[start + s.script("").len()..];
    let name = &name[..name.find('"').unwrap()];
    assert!(name.len() == ".cy-run-.py".len() + 16, "{name}");
    assert_eq!(text, expected(&s.script(name)));
    assert!(!s.workspace.join(name).exists());
}

pub async fn a_non_zero_exit_shows_both_streams_and_the_code(s: &Session) {
    let code = "import sys\nprint('partial')\nprint('giving up', file=sys.stderr)\nsys.exit(3)";
    assert_eq!(
        s.failed(json!({"code": code})).await,
        "the code failed with exit code 3\nstdout:\npartial\nstderr:\ngiving up"
    );
}

pub async fn an_endless_loop_is_killed_at_its_timeout_with_its_children(s: &Session) {
    let started = Instant::now();
    let text = s.failed(json!({"code": FAMILY, "timeout_ms": 1000})).await;
    let elapsed = started.elapsed();
    assert_eq!(
        text,
        "the code timed out after 1000 ms and was killed, with every process it started; its output until then is below. Make it faster, or pass a larger `timeout_ms`\nstdout:\nstarted\nstderr: (empty)"
    );
    assert!(elapsed >= Duration::from_millis(1000), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
    for pid in pids_in(&s.workspace.join("pids.txt")).await {
        assert!(dead(pid), "process {pid} survived the timeout");
    }
}

pub async fn huge_output_is_cut_with_a_notice(s: &Session) {
    let code = "import sys\nsys.stdout.write('x' * 1_000_000)\nprint('end')";
    let text = s.ok(json!({"code": code})).await;
    assert_eq!(
        text,
        format!(
            "{}\n[output cut: showed the first 65536 of 1000004 bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]",
            "x".repeat(65536)
        )
    );
}

pub async fn files_the_code_writes_are_visible_to_read_file(s: &Session) {
    let code = "import os\nos.makedirs('results', exist_ok=True)\nopen('results/out.txt', 'w').write('first\\nsecond\\n')\nprint('written')";
    assert_eq!(
        s.ok(json!({"code": code, "filename": "jobs/write.py"}))
            .await,
        "written"
    );
    let read = s
        .read_file
        .execute(
            ToolCall::new("call-2", json!({"path": "results/out.txt"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(!read.is_error, "{}", read.text_content());
    assert_eq!(read.text_content(), "     1\tfirst\n     2\tsecond");
    let script = s
        .read_file
        .execute(
            ToolCall::new("call-3", json!({"path": "jobs/write.py"})),
            &CancellationToken::new(),
        )
        .await;
    assert!(script.text_content().ends_with("     4\tprint('written')"));
}

pub async fn the_host_environment_is_absent(s: &Session) {
    // The test process has cargo's variables; the code sees the sandbox's clean set only.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let code = "import os\nprint(sorted(os.environ))\nprint(os.environ['HOME'] == os.getcwd())";
    assert_eq!(
        s.ok(json!({"code": code})).await,
        "['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR']\nTrue"
    );
}

pub async fn refusals_read_alike(s: &Session) {
    assert_eq!(
        s.failed(json!({"code": "print(1)", "filename": "../escape.py"}))
            .await,
        "path `../escape.py` is outside the workspace; use a path relative to the workspace root (or under `/workspace/`)"
    );
    assert_eq!(
        s.failed(json!({"code": "print(1)", "timeout_ms": 10_000_000}))
            .await,
        "a timeout of 10000 s is above this workspace's maximum of 3600 s; ask for at most 3600 s (3600000 ms), or split the work into shorter runs"
    );
    assert_eq!(
        s.failed(json!({"code": "  \n"})).await,
        "`code` is empty; pass the Python program to run, such as `print(1 + 1)`"
    );
    assert_eq!(
        s.failed(json!({"code": "print(1)", "timeout_ms": 0})).await,
        "invalid arguments for `execute_code`: `timeout_ms`: 0 is less than the minimum of 1; valid fields are `code` (string, required), `filename` (string), `timeout_ms` (integer)"
    );
}

pub async fn cancelling_kills_the_run_and_its_children(s: &Session) {
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let pids_file = s.workspace.join("pids.txt");
    let canceller = tokio::spawn(async move {
        let pids = pids_in(&pids_file).await;
        trigger.cancel();
        pids
    });
    let started = Instant::now();
    let result = s
        .execute
        .execute(ToolCall::new("call-1", json!({"code": FAMILY})), &cancel)
        .await;
    assert!(result.is_error);
    assert!(started.elapsed() < Duration::from_secs(10));
    for pid in canceller.await.unwrap() {
        assert!(dead(pid), "process {pid} survived cancellation");
    }
}
