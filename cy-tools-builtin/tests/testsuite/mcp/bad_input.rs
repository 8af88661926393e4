//! The MCP server on bad input, line by line, as JSON-RPC 2.0 asks: a line that is not JSON is
//! answered `-32700` with `"id": null`; an invalid request `-32600` with its `id` (or `null`
//! when none can be read, as for `{}`, `5` and batches); a malformed notification never; a line
//! longer than 16 MiB `-32600`, without the server holding it in memory. After each, the
//! server still answers. In process over `serve_io`, and through the `cy-tools mcp` binary.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
use cy_tools_builtin::LocalSandbox;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};

const TIMEOUT: Duration = Duration::from_secs(20);

/// A client sending raw lines.
struct Raw<W> {
    writer: W,
    lines: Lines<BufReader<Box<dyn AsyncRead + Send + Unpin>>>,
    next_id: u64,
}

impl<W: AsyncWrite + Unpin> Raw<W> {
    async fn new(writer: W, reader: impl AsyncRead + Send + Unpin + 'static) -> Self {
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

    async fn line(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message from the server.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(TIMEOUT, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .unwrap()
            .expect("the server keeps the connection open");
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"))
    }

    /// Sends `line` and returns the one answer it gets.
    async fn answer(&mut self, line: &str) -> Value {
        self.line(line).await;
        let answer = self.next().await;
        self.still_answers().await;
        answer
    }

    /// Sends a `ping`: the next message must be its answer, so nothing was sent for what came
    /// before it.
    async fn still_answers(&mut self) {
        let id = self.next_id;
        self.next_id += 1;
        self.line(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string())
            .await;
        let pong = self.next().await;
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }
}

fn error(answer: &Value, code: i64, id: Value) -> String {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    assert_eq!(answer.get("id"), Some(&id), "{answer}");
    answer["error"]["message"].as_str().unwrap().to_string()
}

async fn in_process() -> (tempfile::TempDir, Raw<tokio::io::DuplexStream>) {
    let dir = tempfile::tempdir().unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_env(Arc::new(env));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["read_file"], &context);
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        cy_tools_builtin::mcp::serve_io(tools, server_in, server_out)
            .await
            .unwrap();
    });
    (dir, Raw::new(client_out, client_in).await)
}

const EXAMPLE: &str = r#"`{"jsonrpc": "2.0", "id": 1, "method": "ping"}`"#;

#[tokio::test]
async fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let (_dir, mut raw) = in_process().await;
    let answer = raw.answer("this is not json {").await;
    let message = error(&answer, -32700, Value::Null);
    assert_eq!(
        message,
        format!(
            "parse error: the line is not JSON (expected ident at line 1 column 2); send one JSON-RPC 2.0 message per line, such as {EXAMPLE}"
        )
    );
    // Cut off mid-message, as a client writing a partial line then a newline might.
    let answer = raw.answer(r#"{"jsonrpc": "2.0", "id": 3, "meth"#).await;
    error(&answer, -32700, Value::Null);
}

#[tokio::test]
async fn an_invalid_request_is_answered_with_its_id() {
    let (_dir, mut raw) = in_process().await;
    let answer = raw.answer(r#"{"jsonrpc":"2.0","id":7,"method":5}"#).await;
    assert_eq!(
        error(&answer, -32600, json!(7)),
        format!(
            "invalid request: `method` is the number 5, and must be a string such as \"tools/list\"; send a request such as {EXAMPLE}"
        )
    );
    let answer = raw
        .answer(r#"{"jsonrpc":"1.0","id":"req-8","method":"ping"}"#)
        .await;
    assert_eq!(
        error(&answer, -32600, json!("req-8")),
        format!(
            "invalid request: `jsonrpc` is \"1.0\", and must be \"2.0\"; send a request such as {EXAMPLE}"
        )
    );
    let answer = raw.answer(r#"{"jsonrpc":"2.0","id":9}"#).await;
    assert_eq!(
        error(&answer, -32600, json!(9)),
        format!("invalid request: it has no `method`; send a request such as {EXAMPLE}")
    );
}

#[tokio::test]
async fn what_has_no_readable_id_is_answered_with_a_null_id() {
    let (_dir, mut raw) = in_process().await;
    for (line, message) in [
        (
            "[]",
            "a batch (a JSON array) is not supported; send each message on a line of its own",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "a batch (a JSON array) is not supported; send each message on a line of its own",
        ),
        (
            "{}",
            &format!(
                "invalid request: it has neither `method` nor `id`; send a request such as {EXAMPLE}"
            ),
        ),
        (
            "5",
            &format!("a message is a JSON object, not the number 5; send one such as {EXAMPLE}"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            &format!(
                "invalid request: `id` is the boolean true, and must be a string or a number; send a request such as {EXAMPLE}"
            ),
        ),
    ] {
        let answer = raw.answer(line).await;
        assert_eq!(error(&answer, -32600, Value::Null), message, "{line}");
    }
}

#[tokio::test]
async fn a_malformed_notification_is_never_answered() {
    let (_dir, mut raw) = in_process().await;
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#,
        r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        r#"{"method":"notifications/cancelled","params":{"requestId":[]}}"#,
        r#"{"jsonrpc":"2.0","method":7}"#,
    ] {
        raw.line(line).await;
        raw.still_answers().await;
    }
    // Blank lines are nothing to answer either.
    raw.line("").await;
    raw.line("  \r").await;
    raw.still_answers().await;
}

#[tokio::test]
async fn a_line_longer_than_16_mib_is_dropped_and_answered_with_a_null_id() {
    let (_dir, mut raw) = in_process().await;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(17 << 20)
    );
    let answer = raw.answer(&long).await;
    assert_eq!(
        error(&answer, -32600, Value::Null),
        "invalid request: the line is longer than 16777216 bytes, the most one message may be, so it was dropped unread; send smaller messages (pass large data in files the tools read)"
    );
    // Just under the cap, the same message is read.
    let fits = format!(
        r#"{{"jsonrpc":"2.0","id":12,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(15 << 20)
    );
    let answer = raw.answer(&fits).await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 12, "result": {}}));
}

// Through the binary.

fn spawn_binary(root: &std::path::Path) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(["mcp", "--tools", "read_file", "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

#[tokio::test]
async fn the_binary_answers_bad_lines_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_binary(dir.path());
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut raw = Raw::new(stdin, stdout).await;
    let answer = raw.answer("garbage").await;
    error(&answer, -32700, Value::Null);
    let answer = raw.answer(r#"{"jsonrpc":"2.0","id":7,"method":5}"#).await;
    error(&answer, -32600, json!(7));
    raw.line(r#"{"jsonrpc":"2.0","method":"notifications/x","params":5}"#)
        .await;
    raw.still_answers().await;
    let answer = raw.answer("[]").await;
    error(&answer, -32600, Value::Null);
}

/// The most memory the server may hold at its peak while a 200 MiB line streams through it:
/// well under the line, and under what one 16 MiB line buffered whole twice would take.
const PEAK_LIMIT_KIB: u64 = 96 * 1024;

/// `VmHWM`: the process's peak resident memory.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[tokio::test]
async fn a_200_mib_line_streams_through_the_binary_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn_binary(dir.path());
    let pid = child.id().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut raw = Raw::new(stdin, stdout).await;
    let chunk = vec![b'x'; 1 << 20];
    raw.writer
        .write_all(br#"{"jsonrpc":"2.0","id":13,"method":"ping","params":{"pad":""#)
        .await
        .unwrap();
    let mut answer = None;
    for _ in 0..200 {
        // The answer comes as soon as the line passes 16 MiB; it is read while writing on, so
        // the server is never stuck on a full stdout.
        tokio::select! {
            written = raw.writer.write_all(&chunk) => written.unwrap(),
            line = raw.lines.next_line(), if answer.is_none() => {
                answer = Some(line.unwrap().unwrap());
            }
        }
    }
    raw.line(r#""}}"#).await;
    let answer: Value = match answer {
        Some(line) => serde_json::from_str(&line).unwrap(),
        None => raw.next().await,
    };
    error(&answer, -32600, Value::Null);
    raw.still_answers().await;
    let peak = peak_kib(pid);
    println!("the server's peak resident memory: {peak} KiB");
    assert!(
        peak < PEAK_LIMIT_KIB,
        "the server's memory peaked at {peak} KiB reading a 200 MiB line"
    );
}
