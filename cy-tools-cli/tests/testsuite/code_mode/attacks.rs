//! Code flooding its SDK channel while the runtime answers nothing must not grow the control
//! server's memory past a bound: measured on a `cy-tools control-server` process of its own.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::json;

use super::server_process::start_server;
use crate::support::loopback_server::code_mode_upgrade;

const TOKEN: &str = "code-mode-attacks-token-0123456789";

fn upgrade(addr: std::net::SocketAddr, session: &str) -> TcpStream {
    code_mode_upgrade(addr, session, TOKEN, Duration::from_secs(30))
}

/// `VmHWM` (peak resident set) of `pid`, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn flooding_the_sdk_channel_keeps_the_servers_memory_bounded() {
    // Runs at once, each flooding its channel; the server's request cap (its default body
    // limit) bounds what one run can make it hold.
    const RUNS: usize = 4;
    const MAX_LINE_KIB: u64 = 1024;
    let root = tempfile::tempdir().unwrap();
    let (mut server, addr) = start_server(root.path(), TOKEN, None);
    // A first run, so the baseline includes a run's own costs.
    let mut warm = upgrade(addr, "s-warm");
    let request =
        json!({"code": "print(1)", "filename": "warm.py", "timeout_ms": 10_000}).to_string();
    warm.write_all(format!("{request}\n").as_bytes()).unwrap();
    let mut answer = String::new();
    BufReader::new(&warm).read_line(&mut answer).unwrap();
    assert!(answer.contains("\"done\""), "{answer}");
    let baseline = peak_kib(server.id());

    // 150 connections (or copies of the one channel) each sending 1 MB, while the runtime
    // end reads nothing and answers nothing.
    let flood = r#"
import os, socket, threading
line = b"x" * 1_000_000 + b"\n"
if "CY_SDK_SOCKET" in os.environ:
    socks = []
    for _ in range(150):
        s = socket.socket(socket.AF_UNIX)
        s.connect(os.environ["CY_SDK_SOCKET"])
        socks.append(s)
else:
    fd = int(os.environ["CY_SDK_FD"])
    socks = [socket.socket(fileno=os.dup(fd)) for _ in range(150)]
def send(s):
    try:
        s.sendall(line)
    except OSError:
        pass
threads = [threading.Thread(target=send, args=(s,), daemon=True) for s in socks]
for t in threads:
    t.start()
for t in threads:
    t.join(timeout=3)
print("flooded")
"#;
    let request = json!({"code": flood, "filename": "flood.py", "timeout_ms": 6_000}).to_string();
    let mut floods: Vec<TcpStream> = (0..RUNS)
        .map(|i| {
            let mut s = upgrade(addr, &format!("s-flood-{i}"));
            s.write_all(format!("{request}\n").as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_secs(5));
    let peak = peak_kib(server.id());
    eprintln!("control server peak memory: {baseline} KiB before the floods, {peak} KiB with them");
    floods.clear();
    let _ = server.kill();
    let _ = server.wait();
    // One request in flight per run, held at most three times over (the line read, its parsed
    // form, its encoded copy on the way to the runtime), plus the allocator's slack.
    let bound = baseline + RUNS as u64 * 3 * MAX_LINE_KIB + 24 * 1024;
    assert!(
        peak <= bound,
        "the server's peak memory went from {baseline} KiB to {peak} KiB, over the bound of {bound} KiB"
    );
}
