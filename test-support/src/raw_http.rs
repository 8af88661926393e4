//! One HTTP/1.1 request written by hand on a fresh connection, for what no well-behaved client
//! sends (two `Authorization` headers, a `Content-Length` it never follows with a body) or
//! what the clients have no operation for (an upload left without its commit).

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Longest wait for an answer: far longer than any refusal needs, far shorter than the
/// timeouts a server falls back on.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Writes `head` (request line and header lines, without the blank line), then a blank line
/// and `body`, and reads the answer until the server closes the connection or sends a whole
/// answer: its status and body. Panics when none comes within [`ANSWER_WITHIN`].
pub async fn exchange(addr: SocketAddr, head: &str, body: &[u8]) -> (u16, String) {
    let answer = async {
        let mut stream = TcpStream::connect(addr).await?;
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(b"\r\n\r\n").await?;
        stream.write_all(body).await?;
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            if let Some(answer) = whole_answer(&seen) {
                return std::io::Result::Ok(answer);
            }
        }
        Ok(whole_answer(&seen).unwrap_or((0, String::from_utf8_lossy(&seen).into_owned())))
    };
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(err)) => panic!("no answer to {head:?}: {err}"),
        Err(_) => panic!("no answer within {ANSWER_WITHIN:?} to {head:?}"),
    }
}

/// The status and body of `seen` once it holds a head and the body its `content-length` says.
fn whole_answer(seen: &[u8]) -> Option<(u16, String)> {
    let text = String::from_utf8_lossy(seen);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    (body.len() >= length).then(|| (status, body[..length].to_string()))
}

/// The head of a `POST` to `path` with a JSON body of `length` bytes, the bearer `token`, and
/// `extra` header lines.
pub fn post_head(path: &str, token: &str, length: usize, extra: &[&str]) -> String {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: {length}"
    );
    for line in extra {
        head.push_str("\r\n");
        head.push_str(line);
    }
    head
}
