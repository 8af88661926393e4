//! A fake model API on 127.0.0.1 (a fake, because no model provider can be reached from the
//! machines the tests run on): it answers each request with the next scripted reply (the
//! fixtures in `fixtures/model-api/`, written by hand after each provider's documented wire
//! format) and keeps every request it got, so a test can check what the loop sent. Plain threads and `std::net`, so it serves a `cy-tools` child process as well as a
//! test's own runtime. It can also answer without end, and say when the client hung up.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::test_ca::TestCa;

/// One scripted reply.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A JSON body with this status and extra headers.
    Json {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// `text/event-stream`, sent event by event (chunked) with a pause between them.
    Stream(String),
    /// A body without end, chunked: `head`, then `piece` again and again, as fast as the
    /// client reads, until it closes the connection (or 20 s have passed).
    Endless {
        content_type: &'static str,
        head: String,
        piece: String,
    },
}

/// How an endless answer ended: the bytes of body written, and when the client hung up
/// (`None`: it never did, and the server gave up).
#[derive(Clone, Copy, Debug)]
pub struct Ended {
    pub sent: u64,
    pub hung_up: Option<Instant>,
}

impl Reply {
    /// A 200 answer with the fixture `name` (`openai/plain.json`).
    pub fn ok(name: &str) -> Reply {
        Reply::Json {
            status: 200,
            headers: Vec::new(),
            body: fixture(name),
        }
    }

    /// An answer with `status`, headers and the fixture `name`.
    pub fn status(status: u16, headers: &[(&'static str, &str)], name: &str) -> Reply {
        Reply::Json {
            status,
            headers: headers.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            body: fixture(name),
        }
    }

    /// An event stream without end: `head`, then the event `piece` again and again.
    pub fn endless_stream(head: &str, piece: &str) -> Reply {
        Reply::Endless {
            content_type: "text/event-stream",
            head: head.to_string(),
            piece: piece.to_string(),
        }
    }

    /// The event stream in the fixture `name` (`openai/stream_answer.sse`).
    pub fn stream(name: &str) -> Reply {
        Reply::Stream(fixture(name))
    }
}

/// The text of a fixture.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/model-api")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("fixture {}: {err}", path.display()))
}

/// A request the server got.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Seen {
    /// The value of header `name` (lowercase), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The fake API; it stops serving when dropped (its thread ends at the next connection).
pub struct FakeApi {
    port: u16,
    tls: Option<TestCa>,
    seen: Arc<Mutex<Vec<Seen>>>,
    ended: Arc<Mutex<Vec<Ended>>>,
    connections: Arc<AtomicUsize>,
}

impl FakeApi {
    /// Serves `replies` in order; a request past the last is answered 400, naming it.
    pub fn start(replies: Vec<Reply>) -> FakeApi {
        FakeApi::serve(replies, None)
    }

    /// [`start`](Self::start) over TLS (HTTP/1.1), with a certificate for `127.0.0.1` a new
    /// test CA signed: a client must be told to trust [`ca_pem`](Self::ca_pem).
    pub fn start_tls(replies: Vec<Reply>) -> FakeApi {
        FakeApi::serve(replies, Some(TestCa::new()))
    }

    fn serve(replies: Vec<Reply>, tls: Option<TestCa>) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let ended = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let (shared, shared_ended) = (Arc::clone(&seen), Arc::clone(&ended));
        let counted = Arc::clone(&connections);
        let server_config = tls.as_ref().map(TestCa::server_config);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                counted.fetch_add(1, Ordering::SeqCst);
                let (seen, replies) = (Arc::clone(&shared), Arc::clone(&replies));
                let ended = Arc::clone(&shared_ended);
                let server_config = server_config.clone();
                std::thread::spawn(move || match server_config {
                    None => serve(stream, &seen, &replies, &ended),
                    Some(config) => {
                        let connection = rustls::ServerConnection::new(config).unwrap();
                        let stream = rustls::StreamOwned::new(connection, stream);
                        serve(stream, &seen, &replies, &ended);
                    }
                });
            }
        });
        FakeApi {
            port,
            tls,
            seen,
            ended,
            connections,
        }
    }

    /// The PEM certificate of the CA that signed the server's, when it serves TLS.
    pub fn ca_pem(&self) -> Option<&str> {
        self.tls.as_ref().map(TestCa::ca_pem)
    }

    /// How many connections it accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// How each endless answer so far ended, once it has.
    pub fn ended(&self) -> Vec<Ended> {
        self.ended.lock().unwrap().clone()
    }

    /// `http://127.0.0.1:PORT`, or `https://` when it serves TLS.
    pub fn url(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Serves the requests of one connection until the client closes it, or an answer ends it.
fn serve<S: Read + Write>(
    stream: S,
    seen: &Mutex<Vec<Seen>>,
    replies: &Mutex<VecDeque<Reply>>,
    ended: &Mutex<Vec<Ended>>,
) {
    let mut reader = BufReader::new(stream);
    while serve_one(&mut reader, seen, replies, ended) {}
}

/// Reads one request and answers it; whether the connection stays open for the next.
fn serve_one<S: Read + Write>(
    reader: &mut BufReader<S>,
    seen: &Mutex<Vec<Seen>>,
    replies: &Mutex<VecDeque<Reply>>,
    ended: &Mutex<Vec<Ended>>,
) -> bool {
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return false;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 {
            return false;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap();
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return false;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let number = {
        let mut seen = seen.lock().unwrap();
        seen.push(Seen {
            path,
            headers,
            body,
        });
        seen.len()
    };
    let reply = replies.lock().unwrap().pop_front();
    let out = reader.get_mut();
    match reply {
        None => {
            let body = format!(
                "{{\"error\":{{\"message\":\"the fake API has no reply scripted for request {number}\"}}}}"
            );
            let _ = write!(
                out,
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = out.flush();
            false
        }
        Some(Reply::Json {
            status,
            headers,
            body,
        }) => {
            let mut head = format!(
                "HTTP/1.1 {status} Fake\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            let _ = write!(out, "{head}\r\n{body}");
            out.flush().is_ok()
        }
        Some(Reply::Stream(text)) => {
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
            );
            // One chunk per event, as a server flushes them.
            for event in text.split_inclusive("\n\n") {
                let _ = write!(out, "{:x}\r\n{event}\r\n", event.len());
                let _ = out.flush();
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = write!(out, "0\r\n\r\n");
            out.flush().is_ok()
        }
        Some(Reply::Endless {
            content_type,
            head,
            piece,
        }) => {
            let _ = write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            );
            // An empty chunk would end the body.
            if !head.is_empty() {
                let _ = write!(out, "{:x}\r\n{head}\r\n", head.len());
            }
            let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
            let started = Instant::now();
            let mut sent = head.len() as u64;
            let hung_up = loop {
                if started.elapsed() > Duration::from_secs(20) {
                    break None;
                }
                // A write fails once the client has closed the connection (at the latest when
                // the kernel's buffers are full).
                if out.write_all(chunk.as_bytes()).is_err() {
                    break Some(Instant::now());
                }
                sent += piece.len() as u64;
            };
            ended.lock().unwrap().push(Ended { sent, hung_up });
            false
        }
    }
}
