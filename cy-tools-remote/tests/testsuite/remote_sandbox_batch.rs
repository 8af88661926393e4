//! A burst of read-only operations of one `RemoteSandbox` in one exchange: each caller gets its
//! own result or error, confinement holds for each operation, a batch the server cannot take
//! whole is split or sent again one by one, and a malformed batch is refused with what to do.
//!
//! The client's exchanges go through a forwarder that counts the requests and the batches (and
//! can turn each batch into a kind the server does not know, as a server from before batches
//! sees it).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;

use cy_tools::services::{Sandbox, ServiceError, ServiceErrorKind, WalkOptions};
use cy_tools_remote::RemoteSandbox;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::support::loopback_server::{Server, TOKEN};
use crate::support::raw_http::{exchange, post_head};

/// Counts what a client sends through it to the server.
struct Forwarder {
    addr: SocketAddr,
    requests: Arc<AtomicUsize>,
    batches: Arc<AtomicUsize>,
}

impl Forwarder {
    /// Forwards to `server`; with `unknown_batches`, each batch arrives as kind `batcx`, which
    /// the server refuses as a server from before batches refuses `batch`.
    async fn start(server: SocketAddr, unknown_batches: bool) -> Forwarder {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let batches = Arc::new(AtomicUsize::new(0));
        let (r, b) = (Arc::clone(&requests), Arc::clone(&batches));
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = TcpStream::connect(server).await.unwrap();
                let (r, b) = (Arc::clone(&r), Arc::clone(&b));
                tokio::spawn(forward(client, upstream, r, b, unknown_batches));
            }
        });
        Forwarder {
            addr,
            requests,
            batches,
        }
    }

    fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn counts(&self) -> (usize, usize) {
        (
            self.requests.load(Ordering::SeqCst),
            self.batches.load(Ordering::SeqCst),
        )
    }
}

/// Copies answers back as they come, and requests one whole request at a time (head, then the
/// body its `content-length` announces), counting them.
async fn forward(
    client: TcpStream,
    upstream: TcpStream,
    requests: Arc<AtomicUsize>,
    batches: Arc<AtomicUsize>,
    unknown_batches: bool,
) {
    let (client_read, mut client_write) = client.into_split();
    let (mut upstream_read, mut upstream_write) = upstream.into_split();
    tokio::spawn(async move {
        let _ = tokio::io::copy(&mut upstream_read, &mut client_write).await;
    });
    let mut client_read = BufReader::new(client_read);
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = Vec::new();
            match client_read.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let end = line == b"\r\n";
            head.extend_from_slice(&line);
            if end {
                break;
            }
        }
        let length: usize = String::from_utf8_lossy(&head)
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        let mut body = vec![0; length];
        if client_read.read_exact(&mut body).await.is_err() {
            return;
        }
        requests.fetch_add(1, Ordering::SeqCst);
        let text = String::from_utf8_lossy(&body).into_owned();
        let body = if text.contains(r#""kind":"batch""#) {
            batches.fetch_add(1, Ordering::SeqCst);
            if unknown_batches {
                text.replacen(r#""kind":"batch""#, r#""kind":"batcx""#, 1)
                    .into_bytes()
            } else {
                body
            }
        } else {
            body
        };
        if upstream_write.write_all(&head).await.is_err()
            || upstream_write.write_all(&body).await.is_err()
        {
            return;
        }
    }
}

/// The outputs of `futures`, in order, all polled together (as `asyncio.gather` runs calls).
async fn join_all<T>(futures: Vec<Pin<Box<dyn Future<Output = T> + '_>>>) -> Vec<T> {
    let mut futures: Vec<_> = futures.into_iter().map(Some).collect();
    let mut outputs: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (n, slot) in futures.iter_mut().enumerate() {
            if let Some(future) = slot
                && let Poll::Ready(output) = future.as_mut().poll(cx)
            {
                outputs[n] = Some(output);
                *slot = None;
            }
        }
        if futures.iter().all(Option::is_none) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

type Outcome = Result<Vec<u8>, (ServiceErrorKind, String)>;

fn outcome(result: Result<Vec<u8>, ServiceError>) -> Outcome {
    result.map_err(|err| (err.kind(), err.to_string()))
}

/// The same reads, each as a boxed future on `env`.
fn reads<'a>(
    env: &'a RemoteSandbox,
    child: &'a dyn Sandbox,
    paths: &'a [String],
) -> Vec<Pin<Box<dyn Future<Output = Outcome> + 'a>>> {
    let mut futures: Vec<Pin<Box<dyn Future<Output = Outcome> + 'a>>> = paths
        .iter()
        .map(|path| {
            Box::pin(async move { outcome(env.read(path).await) })
                as Pin<Box<dyn Future<Output = Outcome> + 'a>>
        })
        .collect();
    futures.push(Box::pin(async move {
        outcome(env.read_range("f3.txt", 2, 4).await)
    }));
    futures.push(Box::pin(
        async move { outcome(child.read("mine.txt").await) },
    ));
    futures.push(Box::pin(async move {
        outcome(
            env.list_dir("sub")
                .await
                .map(|entries| format!("{entries:?}").into_bytes()),
        )
    }));
    futures.push(Box::pin(async move {
        outcome(
            env.walk("sub", WalkOptions::default())
                .await
                .map(|walk| format!("{:?}", walk.entries).into_bytes()),
        )
    }));
    futures.push(Box::pin(async move {
        outcome(
            env.stat("missing.txt")
                .await
                .map(|info| format!("{info:?}").into_bytes()),
        )
    }));
    futures
}

fn workspace(root: &std::path::Path) -> Vec<String> {
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(ws.join("kids/k-1")).unwrap();
    std::fs::write(ws.join("kids/k-1/mine.txt"), "the child's").unwrap();
    std::fs::write(ws.join("sub/a.txt"), "a").unwrap();
    std::fs::write(root.join("secret.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(root.join("secret.txt"), ws.join("out-link")).unwrap();
    let mut paths: Vec<String> = (0..12)
        .map(|n| {
            std::fs::write(ws.join(format!("f{n}.txt")), format!("file number {n}")).unwrap();
            format!("f{n}.txt")
        })
        .collect();
    // Refused each in its own way, in the middle of the burst.
    paths.insert(4, "../secret.txt".into());
    paths.insert(7, "out-link".into());
    paths.insert(9, "nothing-here.txt".into());
    paths.insert(10, "sub".into());
    paths
}

#[tokio::test]
async fn a_burst_goes_in_one_exchange_and_each_caller_gets_what_it_would_alone() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    let paths = workspace(dir.path());
    let forwarder = Forwarder::start(server.addr, false).await;
    let env = RemoteSandbox::new(&forwarder.endpoint(), "ws", TOKEN)
        .unwrap()
        .with_chunk_bytes(64 * 1024);
    let child = env.scoped("kids/k-1").unwrap();

    let together = join_all(reads(&env, &*child, &paths)).await;
    assert_eq!(forwarder.counts(), (1, 1), "one exchange, a batch");

    // The same operations one at a time, each in its own exchange.
    let lone_env = RemoteSandbox::new(&server.endpoint(), "ws", TOKEN)
        .unwrap()
        .with_batching(false);
    let lone_child = lone_env.scoped("kids/k-1").unwrap();
    let mut alone = Vec::new();
    for future in reads(&lone_env, &*lone_child, &paths) {
        alone.push(future.await);
    }
    assert_eq!(together.len(), alone.len());
    for (n, (batched, lone)) in together.iter().zip(&alone).enumerate() {
        // Errors name the server they came from: the forwarder's address against the server's.
        let lone = lone.clone().map_err(|(kind, message)| {
            (
                kind,
                message.replace(&server.endpoint(), &forwarder.endpoint()),
            )
        });
        assert_eq!(batched, &lone, "operation {n}");
    }
    assert_eq!(together[0].as_deref().unwrap(), b"file number 0");
    assert_eq!(together[13].as_deref().unwrap(), b"file number 9");
    for (n, kind) in [
        (4, ServiceErrorKind::OutsideSandbox),
        (7, ServiceErrorKind::OutsideSandbox),
        (9, ServiceErrorKind::NotFound),
        (10, ServiceErrorKind::InvalidInput),
    ] {
        assert_eq!(
            together[n].as_ref().unwrap_err().0,
            kind,
            "{n}: {:?}",
            together[n]
        );
    }
    assert!(
        together[4]
            .as_ref()
            .unwrap_err()
            .1
            .starts_with("path `../secret.txt` is outside the workspace"),
        "{:?}",
        together[4]
    );
    assert_eq!(together[16].as_deref().unwrap(), b"le n");
    assert_eq!(together[17].as_deref().unwrap(), b"the child's");
    assert_eq!(
        together[20].as_ref().unwrap_err().0,
        ServiceErrorKind::NotFound
    );

    // Alone, an operation goes alone.
    assert_eq!(env.read("f1.txt").await.unwrap(), b"file number 1");
    assert_eq!(forwarder.counts(), (2, 1));
}

#[tokio::test]
async fn a_burst_too_large_for_one_batch_is_split() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    let paths: Vec<String> = (0..100).map(|n| format!("f{n}.txt")).collect();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    for (n, path) in paths.iter().enumerate() {
        std::fs::write(dir.path().join("ws").join(path), n.to_string()).unwrap();
    }
    let forwarder = Forwarder::start(server.addr, false).await;
    let env = RemoteSandbox::new(&forwarder.endpoint(), "ws", TOKEN)
        .unwrap()
        .with_chunk_bytes(1024);
    let futures = paths
        .iter()
        .map(|path| {
            Box::pin(async { outcome(env.read(path).await) })
                as Pin<Box<dyn Future<Output = Outcome> + '_>>
        })
        .collect();
    let results = join_all(futures).await;
    for (n, result) in results.iter().enumerate() {
        assert_eq!(result.as_deref().unwrap(), n.to_string().as_bytes());
    }
    // 100 operations: 64 in one batch, 36 in the next.
    assert_eq!(forwarder.counts(), (2, 2));

    // Reads asking for more than a batch may carry in all go in several.
    let env = RemoteSandbox::new(&forwarder.endpoint(), "ws", TOKEN)
        .unwrap()
        .with_chunk_bytes(1024 * 1024);
    let futures = paths[..10]
        .iter()
        .map(|path| {
            Box::pin(async { outcome(env.read(path).await) })
                as Pin<Box<dyn Future<Output = Outcome> + '_>>
        })
        .collect();
    let results = join_all(futures).await;
    assert!(results.iter().all(Result::is_ok));
    // 1 MiB each, 8 MiB a batch: two batches (8, 2).
    assert_eq!(forwarder.counts(), (4, 4));
}

#[tokio::test]
async fn a_batch_over_the_body_limit_is_sent_again_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |config| config.max_body_bytes = 1024);
    let paths: Vec<String> = (0..20).map(|n| format!("f{n}.txt")).collect();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    for path in &paths {
        std::fs::write(dir.path().join("ws").join(path), path).unwrap();
    }
    let forwarder = Forwarder::start(server.addr, false).await;
    let env = RemoteSandbox::new(&forwarder.endpoint(), "ws", TOKEN)
        .unwrap()
        .with_chunk_bytes(1024);
    let futures = paths
        .iter()
        .map(|path| {
            Box::pin(async { outcome(env.read(path).await) })
                as Pin<Box<dyn Future<Output = Outcome> + '_>>
        })
        .collect();
    let results = join_all(futures).await;
    for (path, result) in paths.iter().zip(&results) {
        assert_eq!(result.as_deref().unwrap(), path.as_bytes());
    }
    // The batch (over 1 KiB) refused, then each alone.
    assert_eq!(forwarder.counts(), (21, 1));
}

#[tokio::test]
async fn a_server_without_batches_gets_each_operation_alone_from_then_on() {
    let dir = tempfile::tempdir().unwrap();
    // Room for the second burst's operations, all at once as before batches.
    let server = Server::start(dir.path(), |config| config.max_concurrent_runs = 64);
    let paths = workspace(dir.path());
    let forwarder = Forwarder::start(server.addr, true).await;
    let env = RemoteSandbox::new(&forwarder.endpoint(), "ws", TOKEN)
        .unwrap()
        .with_chunk_bytes(64 * 1024);
    let child = env.scoped("kids/k-1").unwrap();
    let first = join_all(reads(&env, &*child, &paths)).await;
    let count = first.len();
    assert_eq!(forwarder.counts(), (1 + count, 1));
    assert_eq!(first[0].as_deref().unwrap(), b"file number 0");
    assert_eq!(
        first[4].as_ref().unwrap_err().0,
        ServiceErrorKind::OutsideSandbox
    );
    let again = join_all(reads(&env, &*child, &paths)).await;
    assert_eq!(again, first);
    assert_eq!(forwarder.counts(), (1 + 2 * count, 1), "no second batch");
}

#[tokio::test]
async fn a_gatherer_cancelled_before_sending_lets_the_others_go_alone() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/a.txt"), "a").unwrap();
    std::fs::write(dir.path().join("ws/b.txt"), "b").unwrap();
    let env = RemoteSandbox::new(&server.endpoint(), "ws", TOKEN).unwrap();
    let poll_once = |future: &mut Pin<Box<dyn Future<Output = Outcome> + '_>>| {
        let waker = std::task::Waker::noop();
        future
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
            .is_pending()
    };
    let mut gatherer: Pin<Box<dyn Future<Output = Outcome>>> =
        Box::pin(async { outcome(env.read("a.txt").await) });
    let mut waiting: Pin<Box<dyn Future<Output = Outcome>>> =
        Box::pin(async { outcome(env.read("b.txt").await) });
    assert!(poll_once(&mut gatherer), "the first gathers, and yields");
    assert!(poll_once(&mut waiting), "the second waits to be gathered");
    drop(gatherer);
    assert_eq!(waiting.await.unwrap(), b"b");
    // The gathering is closed: the next ones gather anew.
    let both = join_all(vec![
        Box::pin(async { outcome(env.read("a.txt").await) }),
        Box::pin(async { outcome(env.read("b.txt").await) }),
    ])
    .await;
    assert_eq!(both, [Ok(b"a".to_vec()), Ok(b"b".to_vec())]);
}

#[tokio::test]
async fn an_operation_does_not_wait_on_a_gatherer_nobody_polls() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |_| {});
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/a.txt"), "a").unwrap();
    std::fs::write(dir.path().join("ws/b.txt"), "b").unwrap();
    let forwarder = Forwarder::start(server.addr, false).await;
    let env = RemoteSandbox::new(&forwarder.endpoint(), "ws", TOKEN).unwrap();
    let mut gatherer: Pin<Box<dyn Future<Output = Outcome>>> =
        Box::pin(async { outcome(env.read("a.txt").await) });
    let waker = std::task::Waker::noop();
    assert!(
        gatherer
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
            .is_pending()
    );
    // The gatherer's owner holds it without polling it: the next read goes alone after a
    // short wait, rather than wait for it.
    let started = std::time::Instant::now();
    assert_eq!(env.read("b.txt").await.unwrap(), b"b");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(gatherer.await.unwrap(), b"a");
    assert_eq!(forwarder.counts(), (2, 0), "each alone, no batch");
}

/// A batch written by hand: its status and body.
async fn post_batch(server: &Server, body: &serde_json::Value) -> (u16, serde_json::Value) {
    let body = body.to_string();
    let (status, answer) = exchange(
        server.addr,
        &post_head("/v1/sessions/ws/sandbox", TOKEN, body.len(), &[]),
        body.as_bytes(),
    )
    .await;
    (
        status,
        serde_json::from_str(&answer).unwrap_or(serde_json::Value::String(answer)),
    )
}

#[tokio::test]
async fn the_server_confines_each_operation_of_a_batch_and_refuses_a_malformed_one_whole() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path(), |config| config.max_body_bytes = 16 * 1024);
    workspace(dir.path());
    let read = |path: &str| serde_json::json!({"op": {"kind": "read_range", "path": path, "offset": 0, "max_len": 100}});
    let (status, answer) = post_batch(
        &server,
        &serde_json::json!({"op": {"kind": "batch", "ops": [
            read("f0.txt"),
            read("../secret.txt"),
            read("out-link"),
            read("/etc/passwd"),
            {"scope": "../..", "op": {"kind": "stat", "path": "secret.txt"}},
            {"scope": "kids/k-1", "op": {"kind": "read_range", "path": "../../../secret.txt", "offset": 0, "max_len": 10}},
            {"scope": "kids/k-1", "op": {"kind": "read_range", "path": "mine.txt", "offset": 0, "max_len": 5_000_000}},
        ]}}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let results = answer["results"].as_array().unwrap();
    assert_eq!(results.len(), 7);
    assert_eq!(results[0]["ok"]["data"], "ZmlsZSBudW1iZXIgMA==");
    for (n, result) in results.iter().enumerate().skip(1) {
        assert!(result.get("ok").is_none(), "{n}: {result}");
        let expected = if n == 6 {
            "invalid_input"
        } else {
            "outside_sandbox"
        };
        assert_eq!(result["kind"], expected, "{n}: {result}");
    }
    assert!(
        results[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("path `../secret.txt` is outside the workspace"),
        "{}",
        results[1]
    );
    assert!(!dir.path().join("ws/secret.txt").exists());
    // What each says is what the same operation alone is answered.
    for (n, op) in [(1, read("../secret.txt")), (2, read("out-link"))] {
        let (status, alone) = post_batch(&server, &op).await;
        assert_eq!(status, 422);
        assert_eq!(alone["error"], results[n]["error"]);
    }

    let exec = serde_json::json!({"op": {"kind": "exec", "command": "touch ran", "options": {}}});
    for (body, status, says) in [
        (
            serde_json::json!({"op": {"kind": "batch", "ops": [read("f0.txt"), exec]}}),
            400,
            "operation `exec` cannot go in a batch: only `read`, `read_range`, `stat`, `list_dir`, `walk` and `search` can; send it alone",
        ),
        (
            serde_json::json!({"op": {"kind": "batch", "ops": []}}),
            400,
            "a batch needs at least one operation in `ops`",
        ),
        (
            serde_json::json!({"scope": "kids", "op": {"kind": "batch", "ops": [read("f0.txt")]}}),
            400,
            "a batch names each operation's own `scope`; leave the batch's `scope` out",
        ),
        (
            serde_json::json!({"op": {"kind": "batch", "ops": vec![read("f0.txt"); 65]}}),
            400,
            "a batch of 65 operations is over this server's 64; send at most 64 at once",
        ),
        (
            serde_json::json!({"op": {"kind": "batch", "ops": [
                {"op": {"kind": "read", "path": "f0.txt", "max_len": 4_194_304}},
                {"op": {"kind": "read", "path": "f1.txt", "max_len": 4_194_304}},
                read("f2.txt"),
            ]}}),
            400,
            "a batch asking for 8388708 bytes of file data and listings is over this server's 8388608; send fewer reads (or smaller ones) at once",
        ),
        (
            serde_json::json!({"op": {"kind": "batch", "ops": [{"op": {"kind": "batch", "ops": []}}]}}),
            400,
            "operation `batch` cannot go in a batch",
        ),
        (
            serde_json::json!({"op": {"kind": "batch", "ops": [{"op": {"kind": "read_range", "path": "f0.txt"}}]}}),
            400,
            "missing field `offset`",
        ),
        (
            serde_json::json!({"op": {"kind": "batch", "ops": vec![read(&"x".repeat(200)); 64]}}),
            413,
            "the request is over this server's limit of 16384 bytes",
        ),
    ] {
        let (got, answer) = post_batch(&server, &body).await;
        assert_eq!(got, status, "{answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{error}");
    }
    assert!(
        !dir.path().join("ws/ran").exists(),
        "nothing of a refused batch ran"
    );
}
