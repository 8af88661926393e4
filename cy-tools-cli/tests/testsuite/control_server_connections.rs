//! The control server's connections under attack, on loopback: a head sent slowly or not at
//! all, a body that stalls, and floods of idle sockets, against a server embedded with short
//! timeouts and a small connection cap (and, for the flood under a low open-file limit, the
//! real `cy-tools control-server` binary). Each wait has its own deadline, so a server that
//! keeps a connection open fails the test instead of hanging it.

use std::io::{BufRead, BufReader as StdBufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cy_tools::services::{CodeExecutor, CodeOptions};
use cy_tools_remote::RemoteExecutor;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::support::code_session::SESSION;
use crate::support::loopback_server::{Server, TOKEN};

const HEADER_TIMEOUT: Duration = Duration::from_millis(300);
const IDLE_TIMEOUT: Duration = Duration::from_millis(300);
/// Room for a loaded machine on top of a timeout; still far from "never".
const MARGIN: Duration = Duration::from_secs(2);
/// For the tests where the header timeout must not be what closes the idle sockets.
const LONG: Duration = Duration::from_secs(60);

/// An embedded server running `sh {file}` (so no test depends on Python), and its root.
struct Host {
    server: Server,
    _root: TempDir,
}

impl Host {
    fn start(max_connections: usize, header_timeout: Duration) -> Host {
        let root = tempfile::tempdir().unwrap();
        let server = Server::start(root.path(), |config| {
            config.command = "sh {file}".into();
            config.header_timeout = header_timeout;
            config.idle_timeout = IDLE_TIMEOUT;
            config.max_connections = max_connections;
        });
        Host {
            server,
            _root: root,
        }
    }

    async fn connect(&self) -> TcpStream {
        TcpStream::connect(self.server.addr).await.unwrap()
    }
}

/// Reads until the server closes the connection (end of stream or a reset): what it sent and
/// how long that took, or `None` when it is still open after `limit`.
async fn until_closed(stream: &mut TcpStream, limit: Duration) -> Option<(String, Duration)> {
    let started = Instant::now();
    let mut seen = Vec::new();
    let closed = tokio::time::timeout(limit, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    closed.ok().map(|()| {
        (
            String::from_utf8_lossy(&seen).into_owned(),
            started.elapsed(),
        )
    })
}

fn execute_request(code: &str) -> String {
    let body = serde_json::json!({"code": code, "filename": "run.sh"}).to_string();
    format!(
        "POST /v1/sessions/{SESSION}/execute HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {TOKEN}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

const HEALTH: &str = "GET /v1/health HTTP/1.1\r\nhost: x\r\n\r\n";

/// Sends `request` on a kept-alive connection and reads one answer: its status and body.
async fn exchange(stream: &mut BufReader<TcpStream>, request: &str) -> (u16, String) {
    let answer = async {
        stream.get_mut().write_all(request.as_bytes()).await?;
        let mut line = String::new();
        stream.read_line(&mut line).await?;
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok());
        let mut length = 0;
        loop {
            line.clear();
            if stream.read_line(&mut line).await? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        stream.read_exact(&mut body).await?;
        std::io::Result::Ok((
            status.unwrap_or(0),
            String::from_utf8_lossy(&body).into_owned(),
        ))
    };
    match tokio::time::timeout(MARGIN, answer).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(err)) => panic!("no answer to {request:?}: {err}"),
        Err(_) => panic!("no answer within {MARGIN:?} to {request:?}"),
    }
}

/// Runs `echo hi` through a `RemoteExecutor`, as a runtime would: its output.
async fn run_echo(endpoint: &str, limit: Duration) -> String {
    let executor = RemoteExecutor::new(endpoint, SESSION, TOKEN).unwrap();
    let run = executor.execute("echo hi", CodeOptions::default());
    match tokio::time::timeout(limit, run).await {
        Ok(Ok(result)) => result.stdout,
        Ok(Err(err)) => panic!("the run failed: {err}"),
        Err(_) => panic!("the run was not answered within {limit:?}"),
    }
}

/// `count` connections that send nothing, each surely accepted by the kernel.
async fn idle_sockets(addr: SocketAddr, count: usize) -> Vec<TcpStream> {
    let mut sockets = Vec::with_capacity(count);
    for _ in 0..count {
        sockets.push(TcpStream::connect(addr).await.unwrap());
    }
    sockets
}

#[tokio::test]
async fn a_head_sent_slowly_is_cut_off_at_the_header_timeout() {
    let host = Host::start(64, HEADER_TIMEOUT);
    let mut stalled = host.connect().await;
    stalled
        .write_all(b"POST /v1/sessions/s-1/execute HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let (_, took) = until_closed(&mut stalled, HEADER_TIMEOUT + MARGIN)
        .await
        .expect("a connection whose head stalls is closed at the header timeout");
    assert!(
        took >= HEADER_TIMEOUT - Duration::from_millis(50),
        "{took:?}"
    );

    // Trickling one byte at a time does not restart the clock: the timeout bounds the head.
    let trickled = host.connect().await;
    let (mut read, mut write) = trickled.into_split();
    tokio::spawn(async move {
        let _ = write.write_all(b"GET /v1/health HTTP/1.1\r\n").await;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if write.write_all(b"x").await.is_err() {
                return;
            }
        }
    });
    let started = Instant::now();
    let closed = tokio::time::timeout(HEADER_TIMEOUT + MARGIN, async {
        let mut buf = [0u8; 1024];
        while let Ok(1..) = read.read(&mut buf).await {}
    })
    .await;
    assert!(closed.is_ok(), "a trickled head was still open");
    assert!(started.elapsed() < HEADER_TIMEOUT + MARGIN);
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_at_the_header_timeout() {
    let host = Host::start(64, HEADER_TIMEOUT);
    let mut silent = host.connect().await;
    let (sent, took) = until_closed(&mut silent, HEADER_TIMEOUT + MARGIN)
        .await
        .expect("a silent connection is closed at the header timeout");
    assert_eq!(sent, "");
    assert!(
        took >= HEADER_TIMEOUT - Duration::from_millis(50),
        "{took:?}"
    );

    // The same after an answer: a kept-alive connection idle for longer is closed too.
    let mut kept = BufReader::new(host.connect().await);
    assert_eq!(exchange(&mut kept, HEALTH).await.0, 200);
    let (sent, took) = until_closed(kept.get_mut(), HEADER_TIMEOUT + MARGIN)
        .await
        .expect("an idle kept-alive connection is closed at the header timeout");
    assert_eq!(sent, "");
    assert!(
        took >= HEADER_TIMEOUT - Duration::from_millis(50),
        "{took:?}"
    );
}

#[tokio::test]
async fn a_body_that_stalls_is_answered_408_at_the_idle_timeout() {
    let host = Host::start(64, HEADER_TIMEOUT);
    let mut stalled = host.connect().await;
    let request = execute_request("echo hi");
    // The whole head and half the body, then nothing.
    stalled
        .write_all(&request.as_bytes()[..request.len() - 10])
        .await
        .unwrap();
    let (answer, took) = until_closed(&mut stalled, IDLE_TIMEOUT + MARGIN)
        .await
        .expect("a stalled body is answered and its connection closed");
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert!(
        answer.ends_with(r#"{"error":"the request body stalled: nothing arrived for 300 ms, this server's `idle_timeout`; send the whole body without pausing, then retry","kind":"timed_out"}"#),
        "{answer}"
    );
    assert!(took >= IDLE_TIMEOUT - Duration::from_millis(50), "{took:?}");
    assert!(
        !host.server.root.join(SESSION).exists(),
        "nothing ran for it"
    );
}

#[tokio::test]
async fn a_body_sent_slowly_but_steadily_is_read() {
    let host = Host::start(64, HEADER_TIMEOUT);
    let mut slow = BufReader::new(host.connect().await);
    let request = execute_request("echo hi");
    let (head, body) = request.split_at(request.find("\r\n\r\n").unwrap() + 4);
    slow.get_mut().write_all(head.as_bytes()).await.unwrap();
    // Each pause is shorter than the idle timeout; all of them together are longer.
    for chunk in body.as_bytes().chunks(body.len().div_ceil(6)) {
        tokio::time::sleep(IDLE_TIMEOUT / 3).await;
        slow.get_mut().write_all(chunk).await.unwrap();
    }
    let (status, answer) = exchange(&mut slow, "").await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(r#""stdout":"hi\n""#), "{answer}");
}

#[tokio::test]
async fn a_run_longer_than_the_header_timeout_is_answered() {
    // The clock stops once the head is in: it bounds waiting for a request, not a run.
    let host = Host::start(64, HEADER_TIMEOUT);
    let mut connection = BufReader::new(host.connect().await);
    let (status, answer) = exchange(&mut connection, &execute_request("sleep 1; echo done")).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(r#""stdout":"done\n""#), "{answer}");
}

#[tokio::test]
async fn a_flood_of_idle_sockets_evicts_the_oldest_and_leaves_room_for_real_requests() {
    let host = Host::start(8, LONG);
    let mut flood = idle_sockets(host.server.addr, 8 + 20).await;
    let (_, took) = until_closed(&mut flood[0], MARGIN)
        .await
        .expect("the oldest idle socket made room for newer ones");
    assert!(took < MARGIN);

    let started = Instant::now();
    let mut health = BufReader::new(host.connect().await);
    let (status, body) = exchange(&mut health, HEALTH).await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    assert!(started.elapsed() < MARGIN);

    assert_eq!(
        run_echo(&host.server.endpoint(), MARGIN).await,
        "hi\n",
        "an authenticated run is answered during the flood"
    );
    drop(flood);
}

#[tokio::test]
async fn an_authenticated_connection_outlives_a_flood_of_unauthenticated_ones() {
    let host = Host::start(4, LONG);
    let mut mine = BufReader::new(host.connect().await);
    let (status, answer) = exchange(&mut mine, &execute_request("echo first")).await;
    assert_eq!(status, 200, "{answer}");
    let mut flood = idle_sockets(host.server.addr, 20).await;
    // Three fit beside the authenticated one; the first 17 of the flood make room in turn, so
    // once the 17th is closed the whole flood has been through the cap.
    for socket in &mut flood[..17] {
        until_closed(socket, MARGIN)
            .await
            .expect("the flood evicted its own oldest sockets");
    }

    let (status, answer) = exchange(&mut mine, &execute_request("echo again")).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(r#""stdout":"again\n""#), "{answer}");
}

#[tokio::test]
async fn when_every_connection_is_authenticated_a_new_one_is_closed_at_once() {
    let host = Host::start(2, LONG);
    let mut first = BufReader::new(host.connect().await);
    let mut second = BufReader::new(host.connect().await);
    assert_eq!(
        exchange(&mut first, &execute_request("echo 1")).await.0,
        200
    );
    assert_eq!(
        exchange(&mut second, &execute_request("echo 2")).await.0,
        200
    );

    let mut third = host.connect().await;
    let _ = third.write_all(HEALTH.as_bytes()).await;
    let (answer, took) = until_closed(&mut third, MARGIN)
        .await
        .expect("a connection beyond the cap, with no one to evict, is closed");
    assert_eq!(answer, "");
    assert!(took < MARGIN);

    assert_eq!(
        exchange(&mut first, &execute_request("echo 1")).await.0,
        200
    );
    assert_eq!(
        exchange(&mut second, &execute_request("echo 2")).await.0,
        200
    );
}

/// `cy-tools control-server` under `ulimit -n 128`, with its default connection cap; killed on
/// drop.
struct Binary {
    child: Child,
    addr: SocketAddr,
    /// Its log, line by line.
    log: mpsc::Receiver<String>,
    _root: TempDir,
}

impl Binary {
    fn start() -> Binary {
        let root = tempfile::tempdir().unwrap();
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"ulimit -n 128 && exec "$0" "$@""#)
            .arg(env!("CARGO_BIN_EXE_cy-tools"))
            .args([
                "control-server",
                "--bind",
                "127.0.0.1:0",
                "--command",
                "sh {file}",
                "--root",
            ])
            .arg(root.path())
            .env("CY_CONTROL_TOKEN", TOKEN)
            .env("CY_TOOLS_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = StdBufReader::new(child.stderr.take().unwrap()).lines();
        let (tx, log) = mpsc::channel();
        // Drained all along, so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut server = Binary {
            child,
            addr: SocketAddr::from(([0, 0, 0, 0], 0)),
            log,
            _root: root,
        };
        let url = server.logged("control server listening on http://");
        server.addr = url
            .trim_start_matches("control server listening on http://")
            .parse()
            .unwrap();
        server
    }

    /// The first line of its log, from here on, that holds `text`.
    fn logged(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.log.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(_) => panic!("the server never logged `{text}`"),
            }
        }
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn idle_sockets_beyond_the_open_file_limit_do_not_starve_health_or_runs() {
    let server = Binary::start();
    // A quarter of the open-file limit.
    server.logged("max_connections=32");
    // More than the 128 files the server may open: without a cap it stops accepting.
    let flood = idle_sockets(server.addr, 200).await;

    let started = Instant::now();
    let mut health = BufReader::new(TcpStream::connect(server.addr).await.unwrap());
    let (status, body) = exchange(&mut health, HEALTH).await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    assert!(started.elapsed() < MARGIN);

    assert_eq!(
        run_echo(&format!("http://{}", server.addr), MARGIN * 2).await,
        "hi\n",
        "an authenticated run is answered despite the flood"
    );
    drop(flood);
}
