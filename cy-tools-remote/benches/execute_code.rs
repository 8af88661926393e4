//! `print(1)` through the code executors against spawning `python3` on the same file directly,
//! in one run:
//!
//! * `execute_code/python3_direct`: `std::process::Command` runs the interpreter the sandbox's
//!   clean `PATH` finds on the script, with the same clean environment, and waits for it;
//! * `execute_code/local_executor`: `LocalExecutor::execute`, which writes the script through
//!   the sandbox (an atomic, synced write), resolves its path and runs `python3 {file}` with
//!   `/bin/sh -c` in its own process group, capturing both streams;
//! * `execute_code/sandbox_write` and `execute_code/sandbox_exec`: the local executor's two
//!   steps alone, `Sandbox::write` of the script and `Sandbox::exec` of `python3 <path>`;
//! * `execute_code/remote_executor`: `RemoteExecutor::execute` against a control server on
//!   loopback, in the same process (a fresh connection per run, JSON both ways, then the
//!   server's local executor).
//!
//! Reproduce: `cargo bench -p cy-tools-builtin --bench execute_code`, then
//! `python3 scripts/criterion_report.py execute_code/python3_direct execute_code/local_executor
//! execute_code/sandbox_write execute_code/sandbox_exec execute_code/remote_executor
//! execute_code/local_executor::execute_code/python3_direct
//! execute_code/sandbox_exec::execute_code/python3_direct
//! execute_code/remote_executor::execute_code/python3_direct`.

use std::hint::black_box;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::services::{CodeExecutor, CodeOptions, ExecOptions, Sandbox};
use cy_tools_remote::RemoteExecutor;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_sandbox::{ExecLimits, LocalSandbox};

const CODE: &str = "print(1)\n";
const TOKEN: &str = "bench-token-0123456789";

fn execute_code(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let limits = ExecLimits::default();
    let script = env.resolve_path("main.py").unwrap();
    runtime
        .block_on(env.write("main.py", CODE.as_bytes().to_vec()))
        .unwrap();
    // The interpreter `python3 {file}` finds in the sandbox's clean `PATH`.
    let python = String::from_utf8(
        Command::new("/bin/sh")
            .args(["-c", "command -v python3"])
            .env_clear()
            .env("PATH", &limits.path)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string();
    let env = Arc::new(env);
    let local = LocalExecutor::new(env.clone());

    let server_root = tempfile::tempdir().unwrap();
    let mut config = ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), server_root.path());
    config.token = Some(TOKEN.to_string());
    let server = runtime.block_on(ControlServer::bind(config)).unwrap();
    let addr = server.local_addr().unwrap();
    runtime.spawn(server.run());
    let remote = RemoteExecutor::new(&format!("http://{addr}"), "bench", TOKEN).unwrap();

    for executor in [&local as &dyn CodeExecutor, &remote] {
        let result = runtime
            .block_on(executor.execute(CODE, CodeOptions::default()))
            .unwrap();
        assert_eq!((result.stdout.as_str(), result.exit_code), ("1\n", Some(0)));
    }

    let mut group = c.benchmark_group("execute_code");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("python3_direct", |b| {
        b.iter(|| {
            let output = Command::new(&python)
                .arg(&script)
                .current_dir(dir.path())
                .env_clear()
                .env("PATH", &limits.path)
                .env("HOME", dir.path())
                .env("LANG", &limits.lang)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert_eq!(output.stdout, b"1\n");
            black_box(output)
        })
    });
    // The two halves of the local executor, for where its time goes.
    group.bench_function("sandbox_write", |b| {
        b.iter(|| black_box(runtime.block_on(env.write("main.py", CODE.as_bytes().to_vec()))))
    });
    let command = format!("python3 '{}'", script.display());
    group.bench_function("sandbox_exec", |b| {
        b.iter(|| black_box(runtime.block_on(env.exec(&command, ExecOptions::default()))))
    });
    group.bench_function("local_executor", |b| {
        b.iter(|| black_box(runtime.block_on(local.execute(CODE, CodeOptions::default()))))
    });
    group.bench_function("remote_executor", |b| {
        b.iter(|| black_box(runtime.block_on(remote.execute(CODE, CodeOptions::default()))))
    });
    group.finish();
}

criterion_group!(benches, execute_code);
criterion_main!(benches);
