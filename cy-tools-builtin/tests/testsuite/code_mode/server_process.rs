//! A `cy-tools control-server` in a process of its own, for the attacks that need a real,
//! long-lived host (a client that goes away, another local user beside it), and a raw
//! code-mode connection to it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Starts the control server over `root` with `token` (and `TMPDIR` set to `tmp` when given),
/// and returns it with the address it says it listens on. Its stderr is read to the end in a
/// thread, so the server never blocks on it.
pub(super) fn start_server(root: &Path, token: &str, tmp: Option<&Path>) -> (Child, SocketAddr) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cy-tools"));
    command
        .args(["control-server", "--bind", "127.0.0.1:0", "--root"])
        .arg(root)
        .env("CY_CONTROL_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(tmp) = tmp {
        command.env("TMPDIR", tmp);
    }
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server says where it listens")
            .unwrap();
        if let Some(addr) = line.strip_prefix("control server listening on http://") {
            break addr.parse().unwrap();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

/// A raw code-mode connection to session `session` on the server at `addr`, upgraded with
/// `token`: lines both ways from here, reads timing out after `read_timeout`.
pub(super) fn upgrade(
    addr: SocketAddr,
    session: &str,
    token: &str,
    read_timeout: Duration,
) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(read_timeout)).unwrap();
    write!(
        stream,
        "GET /v1/sessions/{session}/code-mode HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: upgrade\r\nUpgrade: cy-sdk/1\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "the head ended early");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "not upgraded: {head}");
    stream
}
