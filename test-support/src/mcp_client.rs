//! Clients of an MCP server, spoken to as the tests need, not as a library would: JSON-RPC
//! lines over a pair of byte streams (an in-process server's pipes, or a `cy-tools mcp`
//! child's stdin and stdout), and whole HTTP/1.1 exchanges written by hand.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, Lines,
};
use tokio::net::TcpStream;

/// How long a server has to answer one message.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// One JSON-RPC peer over a pair of byte streams.
pub struct Peer<W> {
    pub writer: W,
    pub lines: Lines<BufReader<Box<dyn AsyncRead + Send + Unpin>>>,
}

impl<W: AsyncWrite + Unpin> Peer<W> {
    pub fn new(writer: W, reader: impl AsyncRead + Send + Unpin + 'static) -> Self {
        let reader: Box<dyn AsyncRead + Send + Unpin> = Box::new(reader);
        Peer {
            writer,
            lines: BufReader::new(reader).lines(),
        }
    }

    pub async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message the server sends; every line must be one JSON-RPC message.
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(TIMEOUT, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server keeps the connection open");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|err| panic!("stdout line is not JSON ({err}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
        message
    }

    /// Sends a request and returns its response, skipping notifications.
    pub async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next().await;
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(
                message.get("id").is_none(),
                "a response to another request: {message}"
            );
        }
    }

    pub async fn initialize(&mut self) -> Value {
        let response = self
            .request(
                0,
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"},
                }),
            )
            .await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    pub async fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
        .await
    }
}

/// A client sending raw lines.
pub struct Raw<W> {
    pub writer: W,
    pub lines: Lines<BufReader<Box<dyn AsyncRead + Send + Unpin>>>,
    next_id: u64,
}

impl<W: AsyncWrite + Unpin> Raw<W> {
    pub async fn new(writer: W, reader: impl AsyncRead + Send + Unpin + 'static) -> Self {
        let reader: Box<dyn AsyncRead + Send + Unpin> = Box::new(reader);
        let mut raw = Raw {
            writer,
            lines: BufReader::new(reader).lines(),
            next_id: 100,
        };
        raw.line(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bad-input", "version": "0"}}})
            .to_string(),
        )
        .await;
        assert_eq!(raw.next().await["id"], 0);
        raw.line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        raw
    }

    pub async fn line(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message from the server.
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(TIMEOUT, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server keeps the connection open");
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"))
    }

    /// Sends `line` and returns the one answer it gets.
    pub async fn answer(&mut self, line: &str) -> Value {
        self.line(line).await;
        let answer = self.next().await;
        self.still_answers().await;
        answer
    }

    /// Sends a `ping`: the next message must be its answer, so nothing was sent for what came
    /// before it.
    pub async fn still_answers(&mut self) {
        let id = self.next_id;
        self.next_id += 1;
        self.line(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string())
            .await;
        let pong = self.next().await;
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }
}

/// The message of the JSON-RPC error `answer`, which must have `code` and `id`.
pub fn error(answer: &Value, code: i64, id: Value) -> String {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    assert_eq!(answer.get("id"), Some(&id), "{answer}");
    answer["error"]["message"].as_str().unwrap().to_string()
}

/// An answer: status, headers (lowercase names) and body.
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.body))
    }

    /// The message of a JSON-RPC error answer.
    pub fn message(&self) -> String {
        self.json()["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message: {}", self.body))
            .to_string()
    }
}

/// Sends `request` (a whole HTTP/1.1 request, `Connection: close`) and reads the answer.
pub async fn exchange(addr: SocketAddr, request: &str) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    read_answer(&mut stream).await
}

/// Reads a whole answer from `stream`, which the server then closes.
pub async fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("the server answers and closes in time")
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole answer");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Answer {
        status,
        head: head.to_ascii_lowercase(),
        body: body.to_string(),
    }
}

/// A POST to `path` with `headers` (each line ending in `\r\n`) and a JSON body.
pub fn post(path: &str, headers: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}
