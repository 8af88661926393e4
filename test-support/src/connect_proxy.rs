//! An HTTP proxy on 127.0.0.1 that does what `HTTPS_PROXY` asks of one: `CONNECT host:port`,
//! then bytes both ways. It keeps the target of each tunnel, so a test sees that its client
//! went through it, and how many tunnels (so connections) it opened.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// The proxy; it stops serving when dropped (its thread ends at the next connection).
pub struct ConnectProxy {
    port: u16,
    tunnels: Arc<Mutex<Vec<String>>>,
}

impl ConnectProxy {
    pub fn start() -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let tunnels = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::clone(&tunnels);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let tunnels = Arc::clone(&shared);
                std::thread::spawn(move || tunnel(stream, &tunnels));
            }
        });
        ConnectProxy { port, tunnels }
    }

    /// `http://127.0.0.1:PORT`, for `HTTPS_PROXY`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The target (`host:port`) of each tunnel so far, in order.
    pub fn tunnels(&self) -> Vec<String> {
        self.tunnels.lock().unwrap().clone()
    }
}

fn tunnel(client: TcpStream, tunnels: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim_end().is_empty() {
            break;
        }
    }
    let mut out = client;
    let mut parts = line.split_whitespace();
    let (Some("CONNECT"), Some(target)) = (parts.next(), parts.next()) else {
        let _ = write!(
            out,
            "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        );
        return;
    };
    tunnels.lock().unwrap().push(target.to_string());
    let Ok(upstream) = TcpStream::connect(target) else {
        let _ = write!(
            out,
            "HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        );
        return;
    };
    let _ = write!(out, "HTTP/1.1 200 Connection Established\r\n\r\n");
    // What the client sent after its CONNECT and the proxy already read goes first.
    let early = reader.buffer().to_vec();
    let (mut up_write, mut up_read) = (upstream.try_clone().unwrap(), upstream);
    let _ = up_write.write_all(&early);
    let mut client_read = reader.into_inner();
    let mut client_write = out;
    let forward = std::thread::spawn(move || {
        let _ = std::io::copy(&mut client_read, &mut up_write);
        let _ = up_write.shutdown(Shutdown::Write);
    });
    let _ = std::io::copy(&mut up_read, &mut client_write);
    let _ = client_write.shutdown(Shutdown::Write);
    let _ = forward.join();
}
