//! What a workspace on an execution host costs: each file tool and `terminal` called through a
//! `RemoteSandbox` (a control server on loopback, in this process) against the same tool on a
//! `LocalSandbox` of the very folder the server works in, in one run.
//!
//! First the paired ratios: the two sides timed in alternating rounds (the median of the
//! per-round ratios, so a burst of load on the shared machine lands on both sides), then
//! criterion's own measurements of each side. Goal for small operations: at most 3x local.
//!
//! Then the floor a remote operation cannot go under, measured in the same run: the same local
//! operation plus one bare keep-alive HTTP/1.1 round trip on loopback (a hyper client on a
//! kept connection to a hyper server answering a fixed 2-byte body, on a one-worker runtime
//! like the control server's). Goal: `read_file`, `list_directory` and `find_files` at most
//! 1.5x that floor.
//!
//! Beside each of those three, the CPU time one call costs on each thread (the bench's own,
//! the control server's, the bare server's, the blocking pools'), which the wake-ups between
//! threads do not blur.
//!
//! Then bursts: 16 concurrent `read_file`s (and `list_directory`s) of different paths, as code
//! mode's or a model turn's concurrent calls make them, gathered into one batch exchange,
//! paired against the same 16 calls as 16 lone exchanges at once (`with_batching(false)`), and
//! against 16 local calls plus one bare round trip.
//!
//! Reproduce: `cargo bench -p cy-tools-remote --bench remote_sandbox` (with
//! `REMOTE_SANDBOX_ONLY=find_files`, say, for one tool's paired figure).

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::{
    BoundTool, CancellationToken, SessionIdentity, ToolCall, ToolContext, binding::bind_tool,
    services::Sandbox,
};
use cy_tools_remote::RemoteSandbox;
use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::tools::{
    edit_file::EDIT_FILE, find_files::FIND_FILES, list_directory::LIST_DIRECTORY,
    read_file::READ_FILE, search_text::SEARCH_TEXT, terminal::TERMINAL, write_file::WRITE_FILE,
};
use serde_json::{Value, json};

/// Rounds of the paired measurement: odd, so the median is one round's ratio.
const ROUNDS: usize = 31;

const TOKEN: &str = "bench-token-0123456789";

/// Concurrent calls in a burst.
const BURST: usize = 16;

/// The median over [`ROUNDS`] of (time of `iterations` calls of `a`) / (the same of `b`),
/// alternating which goes first, and the median time of one call of each.
fn paired(iterations: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64, f64) {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..iterations {
            f();
        }
        start.elapsed().as_secs_f64() / iterations as f64
    };
    let mut rounds: Vec<(f64, f64)> = (0..ROUNDS)
        .map(|round| {
            if round % 2 == 0 {
                let ta = time(&mut a);
                (ta, time(&mut b))
            } else {
                let tb = time(&mut b);
                (time(&mut a), tb)
            }
        })
        .collect();
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[ROUNDS / 2]
    };
    let ratio = median(rounds.iter().map(|(a, b)| a / b).collect());
    let ta = median(rounds.iter().map(|r| r.0).collect());
    let tb = median(rounds.drain(..).map(|r| r.1).collect());
    (ratio, ta, tb)
}

/// A control server on loopback, on a runtime of its own (kept alive by the caller).
fn server(root: &std::path::Path) -> (tokio::runtime::Runtime, String) {
    let mut config = ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root);
    config.token = Some(TOKEN.to_string());
    config.max_concurrent_runs = 64;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("control-server")
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(ControlServer::bind(config)).unwrap();
    let endpoint = format!("http://{}", server.local_addr().unwrap());
    runtime.spawn(server.run());
    (runtime, endpoint)
}

/// A bare HTTP/1.1 server on loopback answering every request `{}`, on a runtime of its own
/// with one worker (as the control server's above).
fn bare_server() -> (tokio::runtime::Runtime, std::net::SocketAddr) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("bare-server")
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    |request: hyper::Request<hyper::body::Incoming>| async move {
                        // The request body is read, as the control server reads its own.
                        let _ = http_body_util::BodyExt::collect(request.into_body()).await;
                        Ok::<_, std::convert::Infallible>(hyper::Response::new(
                            http_body_util::Full::new(hyper::body::Bytes::from_static(b"{}")),
                        ))
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (runtime, addr)
}

/// One round trip on a kept connection to [`bare_server`]: what a remote operation pays at the
/// least for going over HTTP.
struct BareRoundTrip {
    sender: hyper::client::conn::http1::SendRequest<http_body_util::Full<hyper::body::Bytes>>,
    authority: String,
}

impl BareRoundTrip {
    fn connect(runtime: &tokio::runtime::Runtime, addr: std::net::SocketAddr) -> Self {
        let stream = runtime
            .block_on(tokio::net::TcpStream::connect(addr))
            .unwrap();
        stream.set_nodelay(true).unwrap();
        let (sender, connection) = runtime
            .block_on(hyper::client::conn::http1::handshake(
                hyper_util::rt::TokioIo::new(stream),
            ))
            .unwrap();
        runtime.spawn(connection);
        BareRoundTrip {
            sender,
            authority: addr.to_string(),
        }
    }

    fn once(&mut self, runtime: &tokio::runtime::Runtime) {
        let request = hyper::Request::post("/sandbox")
            .header(hyper::header::HOST, self.authority.as_str())
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(http_body_util::Full::new(hyper::body::Bytes::from_static(
                br#"{"op":"read_file","path":"src/notes.txt"}"#,
            )))
            .unwrap();
        runtime.block_on(async {
            let response = self.sender.send_request(request).await.unwrap();
            let body = http_body_util::BodyExt::collect(response.into_body())
                .await
                .unwrap();
            std::hint::black_box(body);
        });
    }
}

/// Nanoseconds each thread of this process has spent on a CPU so far, summed by thread name
/// (`/proc/self/task/*/schedstat`; Linux only, empty elsewhere).
fn cpu_by_thread() -> std::collections::BTreeMap<String, u64> {
    let mut by_name = std::collections::BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return by_name;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        let ran = std::fs::read_to_string(path.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        *by_name.entry(name.trim().to_string()).or_insert(0) += ran;
    }
    by_name
}

/// CPU time per call of each thread `calls` calls of `f` ran on (the bench's own thread, the
/// control server's, the bare server's, the blocking pools'): what each exchange costs in
/// work, which the wake-ups between the threads (most of a round trip's wall time on a quiet
/// virtual machine) do not blur.
fn cpu_per_call(calls: usize, mut f: impl FnMut()) -> String {
    let before = cpu_by_thread();
    for _ in 0..calls {
        f();
    }
    let after = cpu_by_thread();
    let mut parts = Vec::new();
    for (name, ns) in &after {
        let spent = ns.saturating_sub(*before.get(name).unwrap_or(&0));
        if spent >= calls as u64 * 100 {
            parts.push(format!(
                "{name} {:.1} us",
                spent as f64 / calls as f64 / 1e3
            ));
        }
    }
    parts.join(", ")
}

/// Calls of a burst all polled together (as concurrent calls run), each checked.
async fn burst(tool: &BoundTool, calls: &[Value], cancel: &CancellationToken) {
    let mut futures: Vec<_> = calls
        .iter()
        .map(|args| {
            Some(Box::pin(
                tool.execute(ToolCall::new("c", args.clone()), cancel),
            ))
        })
        .collect();
    std::future::poll_fn(move |cx| {
        for slot in futures.iter_mut() {
            if let Some(future) = slot
                && let std::task::Poll::Ready(result) = future.as_mut().poll(cx)
            {
                assert!(
                    !result.is_error,
                    "{}: {}",
                    tool.name(),
                    result.text_content()
                );
                std::hint::black_box(result);
                *slot = None;
            }
        }
        if futures.iter().all(Option::is_none) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

fn bind_all(env: Arc<dyn Sandbox>) -> Vec<BoundTool> {
    let ctx = ToolContext::new(SessionIdentity::root("bench", "bench")).with_env(env);
    vec![
        bind_tool(&READ_FILE, ctx.clone()).unwrap(),
        bind_tool(&WRITE_FILE, ctx.clone()).unwrap(),
        bind_tool(&EDIT_FILE, ctx.clone()).unwrap(),
        bind_tool(&LIST_DIRECTORY, ctx.clone()).unwrap(),
        bind_tool(&FIND_FILES, ctx.clone()).unwrap(),
        bind_tool(&SEARCH_TEXT, ctx.clone()).unwrap(),
        bind_tool(&TERMINAL, ctx).unwrap(),
    ]
}

/// Each tool's calls for one iteration, and iterations per round (a write syncs to disk and
/// a command forks, so fewer of those).
fn cases() -> Vec<(&'static str, Vec<Value>, usize)> {
    vec![
        ("read_file", vec![json!({"path": "src/notes.txt"})], 40),
        (
            "write_file",
            vec![json!({"path": "out/w.txt", "content": "a small file\n"})],
            10,
        ),
        (
            "edit_file",
            // There and back, so every call finds its string.
            vec![
                json!({"path": "edit.txt", "old_string": "alpha", "new_string": "omega"}),
                json!({"path": "edit.txt", "old_string": "omega", "new_string": "alpha"}),
            ],
            5,
        ),
        ("list_directory", vec![json!({"path": "src"})], 40),
        ("find_files", vec![json!({"pattern": "**/*.rs"})], 40),
        ("search_text", vec![json!({"pattern": "needle"})], 40),
        ("terminal", vec![json!({"command": "true"})], 10),
    ]
}

fn remote_sandbox(c: &mut Criterion) {
    let root = tempfile::tempdir().unwrap();
    let folder = root.path().join("ws");
    std::fs::create_dir_all(folder.join("src/deep")).unwrap();
    let text: String = (1..=50)
        .map(|i| format!("line {i} of the notes\n"))
        .collect();
    std::fs::write(folder.join("src/notes.txt"), &text).unwrap();
    for i in 0..20 {
        std::fs::write(
            folder.join(format!("src/deep/m{i}.rs")),
            format!("fn f{i}() {{}}\n// needle {i}\n"),
        )
        .unwrap();
    }
    std::fs::write(folder.join("edit.txt"), "alpha beta\n").unwrap();
    // The bursts' files are a workspace of their own, so the walks above see the same tree
    // as before bursts were measured.
    let burst_folder = root.path().join("burst");
    for i in 0..BURST {
        std::fs::create_dir_all(burst_folder.join(format!("d{i}"))).unwrap();
        std::fs::write(burst_folder.join(format!("d{i}/a.txt")), "a\n").unwrap();
        std::fs::write(burst_folder.join(format!("f{i}.txt")), &text).unwrap();
    }

    let (_server, endpoint) = server(root.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let remote = bind_all(Arc::new(
        RemoteSandbox::new(&endpoint, "ws", TOKEN).unwrap(),
    ));
    let local = bind_all(Arc::new(LocalSandbox::new(&folder).unwrap().env()));
    let cancel = CancellationToken::new();
    let call = |tool: &BoundTool, calls: &[Value]| {
        for args in calls {
            let result = runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel));
            assert!(
                !result.is_error,
                "{}: {}",
                tool.name(),
                result.text_content()
            );
            std::hint::black_box(result);
        }
    };

    // `REMOTE_SANDBOX_ONLY=find_files` measures that tool alone.
    let only = std::env::var("REMOTE_SANDBOX_ONLY").ok();
    for (n, (name, args, iterations)) in cases().into_iter().enumerate() {
        if only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let (r, l) = (&remote[n], &local[n]);
        assert_eq!(r.name(), name);
        let (ratio, tr, tl) = paired(iterations, || call(r, &args), || call(l, &args));
        println!(
            "remote_sandbox/{name}: remote / local, paired median of {ROUNDS} rounds: {ratio:.2}x ({:.0} us / {:.0} us per call)",
            tr * 1e6 / args.len() as f64,
            tl * 1e6 / args.len() as f64
        );
        let mut group = c.benchmark_group(format!("remote_sandbox/{name}"));
        group.measurement_time(Duration::from_secs(2));
        group.warm_up_time(Duration::from_millis(500));
        group.bench_function("remote", |b| b.iter(|| call(r, &args)));
        group.bench_function("local", |b| b.iter(|| call(l, &args)));
        group.finish();
    }

    // The floor: the local operation plus one bare round trip, against the remote operation.
    let (_bare_server, bare_addr) = bare_server();
    let bare = std::cell::RefCell::new(BareRoundTrip::connect(&runtime, bare_addr));
    for (n, (name, args, iterations)) in cases().into_iter().enumerate() {
        if !["read_file", "list_directory", "find_files"].contains(&name)
            || only.as_deref().is_some_and(|only| only != name)
        {
            continue;
        }
        let (r, l) = (&remote[n], &local[n]);
        let floor = || {
            call(l, &args);
            bare.borrow_mut().once(&runtime);
        };
        let (ratio, tr, tf) = paired(iterations, || call(r, &args), floor);
        println!(
            "| paired `remote_sandbox/{name}`: remote / (local + one bare keep-alive HTTP/1.1 round trip) | {ratio:.2}x | {:.1} us / {:.1} us per call |",
            tr * 1e6,
            tf * 1e6
        );
        let calls = iterations * 50;
        println!(
            "remote_sandbox/{name}: CPU per call, remote: {}; local + one bare round trip: {}",
            cpu_per_call(calls, || call(r, &args)),
            cpu_per_call(calls, floor)
        );
    }
    // `REMOTE_SANDBOX_PROBE=1`: CPU per call of single operations (no tool around them),
    // where a lone exchange's work goes: the server's pipeline alone (a process list: no file
    // work), a ranged read (inline on the server), a stat (on the server's blocking pool), and
    // the same read locally.
    if std::env::var("REMOTE_SANDBOX_PROBE").is_ok() {
        let sandbox = RemoteSandbox::new(&endpoint, "ws", TOKEN).unwrap();
        let local_env = LocalSandbox::new(&folder).unwrap().env();
        let table = sandbox.processes().unwrap();
        let probe = |what: &str, f: &mut dyn FnMut()| {
            println!("remote_sandbox probe: {what}: {}", cpu_per_call(4000, f));
        };
        probe("bare round trip", &mut || bare.borrow_mut().once(&runtime));
        // The same bare request to the control server, which answers it `404` from its router:
        // its connection handling and routing without any endpoint's work.
        let control_addr: std::net::SocketAddr =
            endpoint.trim_start_matches("http://").parse().unwrap();
        let mut unrouted = BareRoundTrip::connect(&runtime, control_addr);
        probe("unrouted request to the control server (404)", &mut || {
            unrouted.once(&runtime)
        });
        // A `RemoteSandbox`'s request to the bare server (whose `{}` it then refuses to take
        // for a process list): the client's side of an exchange against hyper's.
        let to_bare = RemoteSandbox::new(&format!("http://{bare_addr}"), "ws", TOKEN).unwrap();
        let to_bare_table = to_bare.processes().unwrap();
        probe("a RemoteSandbox request to the bare server", &mut || {
            let _ = runtime.block_on(to_bare_table.list());
        });
        probe("remote process list", &mut || {
            runtime.block_on(table.list()).unwrap();
        });
        probe("remote read_range", &mut || {
            runtime
                .block_on(sandbox.read_range("src/notes.txt", 0, 16384))
                .unwrap();
        });
        probe("remote stat", &mut || {
            runtime.block_on(sandbox.stat("src/notes.txt")).unwrap();
        });
        probe("local read_range", &mut || {
            runtime
                .block_on(local_env.read_range("src/notes.txt", 0, 16384))
                .unwrap();
        });
    }

    // Bursts: `BURST` concurrent calls, gathered into one batch exchange, against the same
    // calls as `BURST` lone exchanges at once, and against the floor of the same local calls
    // plus one bare round trip.
    let batching = bind_all(Arc::new(
        RemoteSandbox::new(&endpoint, "burst", TOKEN).unwrap(),
    ));
    let lone = bind_all(Arc::new(
        RemoteSandbox::new(&endpoint, "burst", TOKEN)
            .unwrap()
            .with_batching(false),
    ));
    let local_burst = bind_all(Arc::new(LocalSandbox::new(&burst_folder).unwrap().env()));
    for (n, name, args) in [
        (
            0,
            "read_file",
            (0..BURST)
                .map(|i| json!({"path": format!("f{i}.txt")}))
                .collect::<Vec<_>>(),
        ),
        (
            3,
            "list_directory",
            (0..BURST)
                .map(|i| json!({"path": format!("d{i}")}))
                .collect::<Vec<_>>(),
        ),
    ] {
        if only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let (batched, alone, l) = (&batching[n], &lone[n], &local_burst[n]);
        assert_eq!(batched.name(), name);
        let go = |tool: &BoundTool| runtime.block_on(burst(tool, &args, &cancel));
        let floor = || {
            go(l);
            bare.borrow_mut().once(&runtime);
        };
        let (vs_lone, tb, ta) = paired(10, || go(batched), || go(alone));
        let (vs_floor, _, tf) = paired(10, || go(batched), floor);
        println!(
            "| paired `remote_sandbox/burst_{name}` ({BURST} at once): batched / lone exchanges | {vs_lone:.2}x | {:.1} us / {:.1} us per burst |",
            tb * 1e6,
            ta * 1e6
        );
        println!(
            "| paired `remote_sandbox/burst_{name}` ({BURST} at once): batched / ({BURST} local + one bare round trip) | {vs_floor:.2}x | {:.1} us / {:.1} us per burst |",
            tb * 1e6,
            tf * 1e6
        );
        println!(
            "remote_sandbox/burst_{name}: CPU per burst, batched: {}; lone exchanges: {}",
            cpu_per_call(200, || go(batched)),
            cpu_per_call(200, || go(alone))
        );
    }

    let mut times: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..40 {
                bare.borrow_mut().once(&runtime);
            }
            start.elapsed().as_secs_f64() / 40.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "remote_sandbox: one bare keep-alive HTTP/1.1 round trip on loopback, median of {ROUNDS} rounds: {:.1} us",
        times[ROUNDS / 2] * 1e6
    );
}

criterion_group!(benches, remote_sandbox);
criterion_main!(benches);
