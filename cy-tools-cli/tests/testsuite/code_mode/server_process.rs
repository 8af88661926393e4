//! A `cy-tools control-server` in a process of its own, for the attacks that need a real,
//! long-lived host (its own memory measured, another local user beside it). A raw code-mode
//! connection to it is `support::loopback_server::code_mode_upgrade`.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};

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
