//! A control server on loopback in a runtime of its own, so a test can kill it as a crash would:
//! every task, connection and run it has stops at once.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cy_tools_remote::control_server::{ControlServer, ControlServerConfig};

/// The token the server is started with, and its clients send.
pub const TOKEN: &str = "test-token-5f1c9a7e2b";

/// A control server on loopback, with the token [`TOKEN`].
pub struct Server {
    runtime: Option<tokio::runtime::Runtime>,
    pub addr: std::net::SocketAddr,
    pub root: PathBuf,
}

impl Server {
    pub fn start(root: &Path, tune: impl FnOnce(&mut ControlServerConfig)) -> Server {
        let mut config = ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root);
        config.token = Some(TOKEN.to_string());
        tune(&mut config);
        // Built on a thread of its own: a test's runtime cannot block on another.
        let (runtime, addr) = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let server = runtime.block_on(ControlServer::bind(config)).unwrap();
            let addr = server.local_addr().unwrap();
            runtime.spawn(server.run());
            (runtime, addr)
        })
        .join()
        .unwrap();
        Server {
            runtime: Some(runtime),
            addr,
            root: root.canonicalize().unwrap(),
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A raw code-mode connection to session `session` on the server at `addr`, upgraded with
/// `token`: lines both ways from here, reads timing out after `read_timeout`.
pub fn code_mode_upgrade(
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
