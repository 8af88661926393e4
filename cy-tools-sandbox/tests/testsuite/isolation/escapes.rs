//! The corpus through every way a command starts (locally, and on a control server: code, and
//! the remote sandbox's `terminal` and background processes), and what confinement leaves
//! working.

use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    SessionIdentity, ToolContext,
    binding::bind_tool,
    services::{ExecOptions, Sandbox},
};
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::RemoteSandbox;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::tools::terminal::TERMINAL;
use serde_json::json;

use super::corpus::{expand, python, python_attempts, shell_attempts};
use super::host::{Host, RUNTIME_ENV, RUNTIME_ENV_VALUE, SECRET};
use super::{call, check, isolation_available, tools};
use crate::support::alone::alone;

const TOKEN: &str = "isolation-escapes-token-0123456789";

#[test]
fn no_escape_through_terminal_process_or_local_code() {
    if isolation_available() {
        alone!(no_escape_local)
            .env(RUNTIME_ENV, RUNTIME_ENV_VALUE)
            .run();
    }
}

#[test]
#[ignore = "run by `no_escape_through_terminal_process_or_local_code` in a process of its own"]
fn no_escape_local() {
    let host = Host::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (terminal, execute, env) = tools(&host, None);
        let mut tried = 0;
        for (name, command) in shell_attempts() {
            let command = expand(command, &host);
            let out = call(&terminal, json!({"command": command})).await;
            check(&format!("terminal, {name}"), &out, &host);
            let code = format!("import subprocess\nprint(subprocess.run({command:?}, shell=True, capture_output=True, text=True))");
            let out = call(&execute, json!({"code": code})).await;
            check(&format!("execute_code, {name}"), &out, &host);
            let output = background(&*env, &command).await;
            check(&format!("process, {name}"), &output, &host);
            tried += 3;
        }
        for (name, attempt) in python_attempts() {
            let out = call(&execute, json!({"code": python(attempt, &host)})).await;
            check(&format!("execute_code (Python), {name}"), &out, &host);
            tried += 1;
        }
        assert!(tried >= 25 * 3, "{tried} attempts");
    });
}

/// What `command` run as a background process of `env` printed, once it ended.
async fn background(env: &dyn Sandbox, command: &str) -> String {
    let table = env.processes().unwrap();
    let info = table.start(command, ExecOptions::default()).await.unwrap();
    let mut output = String::new();
    for _ in 0..500 {
        let got = table.output(&info.id).await.unwrap();
        output.push_str(&got.stdout);
        output.push_str(&got.stderr);
        if !got.info.running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    output
}

#[test]
fn no_escape_through_the_control_server() {
    if isolation_available() {
        alone!(no_escape_remote)
            .env(RUNTIME_ENV, RUNTIME_ENV_VALUE)
            .run();
    }
}

#[test]
#[ignore = "run by `no_escape_through_the_control_server` in a process of its own"]
fn no_escape_remote() {
    let host = Host::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // The server's workspace for the session is the host's `ws` folder.
        let config = ControlServerConfig {
            token: Some(TOKEN.into()),
            ..ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), &host.root)
        };
        let server = ControlServer::bind(config).await.unwrap();
        let addr = server.local_addr().unwrap();
        tokio::spawn(server.run());
        let remote = RemoteExecutor::new(&format!("http://{addr}"), "ws", TOKEN).unwrap();
        let (_, execute, _) = tools(&host, Some(Arc::new(remote)));
        // The session's workspace on the server too: its `terminal` and background processes
        // are confined there by the server's policy.
        let env: Arc<dyn Sandbox> =
            Arc::new(RemoteSandbox::new(&format!("http://{addr}"), "ws", TOKEN).unwrap());
        let context = ToolContext::new(SessionIdentity::root("s-escape", "acme"))
            .with_env(Arc::clone(&env));
        let terminal = bind_tool(&TERMINAL, context).unwrap();
        for (name, command) in shell_attempts() {
            let command = expand(command, &host);
            let code = format!("import subprocess\nprint(subprocess.run({command:?}, shell=True, capture_output=True, text=True))");
            let out = call(&execute, json!({"code": code})).await;
            check(&format!("control server, {name}"), &out, &host);
            let out = call(&terminal, json!({"command": command})).await;
            check(&format!("remote terminal, {name}"), &out, &host);
            let output = background(&*env, &command).await;
            check(&format!("remote process, {name}"), &output, &host);
        }
        for (name, attempt) in python_attempts() {
            let out = call(&execute, json!({"code": python(attempt, &host)})).await;
            check(&format!("control server (Python), {name}"), &out, &host);
        }
    });
}

#[test]
fn a_child_sessions_commands_cannot_reach_its_parents_files() {
    if !isolation_available() {
        return;
    }
    let host = Host::new_plain();
    std::fs::write(host.workspace().join("parent-secret.txt"), SECRET).unwrap();
    let parent = LocalSandbox::new(host.workspace()).unwrap().env();
    let child = parent.scoped("subagents/worker-1").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let parent_file = host.workspace().join("parent-secret.txt");
        for command in [
            "cat ../../parent-secret.txt".to_string(),
            format!("cat {}", parent_file.display()),
            "cd ../.. && cat parent-secret.txt".to_string(),
            "echo pwned > ../../pwned.txt".to_string(),
            "ln -s ../../parent-secret.txt up && cat up".to_string(),
        ] {
            let out = child.exec(&command, ExecOptions::default()).await.unwrap();
            let text = format!("{}{}", out.stdout, out.stderr);
            assert!(!text.contains(SECRET), "{command}: {text}");
            assert!(!host.workspace().join("pwned.txt").exists(), "{command}");
        }
        // Its own folder is its to use.
        let own = child
            .exec("echo mine > own.txt && cat own.txt", ExecOptions::default())
            .await
            .unwrap();
        assert_eq!(own.stdout, "mine\n");
    });
}

#[test]
fn ordinary_work_still_runs_confined() {
    if !isolation_available() {
        return;
    }
    let host = Host::new_plain();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (terminal, execute, _) = tools(&host, None);
        let code = r#"
import asyncio, hashlib, json, sqlite3, subprocess, tempfile
async def main():
    proc = await asyncio.create_subprocess_exec("echo", "from asyncio", stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    return out.decode().strip()
db = sqlite3.connect(":memory:"); db.execute("create table t (x)"); db.execute("insert into t values (1)")
with tempfile.NamedTemporaryFile("w") as f:
    f.write("x")
print(json.dumps({"asyncio": asyncio.run(main()), "sqlite": db.execute("select x from t").fetchone()[0],
    "sha": hashlib.sha256(b"a").hexdigest()[:8], "sub": subprocess.run(["echo", "sub"], capture_output=True, text=True).stdout.strip()}))
"#;
        let out = call(&execute, json!({"code": code})).await;
        assert_eq!(
            out,
            r#"{"asyncio": "from asyncio", "sqlite": 1, "sha": "ca978112", "sub": "sub"}"#
        );
        let git = "git init -q repo && cd repo && echo hi > a && git add a && git -c user.name=t -c user.email=t@t commit -qm first && git log --format=%s";
        let out = call(&terminal, json!({"command": git})).await;
        assert!(out.contains("stdout:\nfirst"), "{out}");
        std::fs::write(
            host.workspace().join("hello.c"),
            "#include <stdio.h>\nint main(void) { puts(\"compiled\"); return 0; }\n",
        )
        .unwrap();
        let out = call(&terminal, json!({"command": "cc -o hello hello.c && ./hello"})).await;
        assert!(out.contains("stdout:\ncompiled"), "{out}");
    });
}
