//! `cy-tools-app mcp --http 127.0.0.1:0`, started for a test and stopped when dropped, with the
//! URL it printed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::app::app;

/// The token the servers are started with (`CY_TOOLS_MCP_TOKEN`).
pub const TOKEN: &str = "test-token-0123456789abcdef";

/// A running HTTP MCP server.
pub struct HttpMcp {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl HttpMcp {
    /// Serves `tools` over `workspace` (all the session has when empty), with [`TOKEN`] and
    /// `extra` arguments.
    pub fn start(workspace: &Path, tools: &str, extra: &[&str]) -> HttpMcp {
        HttpMcp::start_with_env(workspace, tools, extra, &[])
    }

    /// The same, with `env` added to the server's environment.
    pub fn start_with_env(
        workspace: &Path,
        tools: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> HttpMcp {
        let mut command = app();
        command.args(["mcp", "--http", "127.0.0.1:0"]);
        // No `--tools`: every tool the session has (a spec's, its servers').
        if !tools.is_empty() {
            command.args(["--tools", tools]);
        }
        let mut child = command
            .arg("--root")
            .arg(workspace)
            .args(extra)
            .env("CY_TOOLS_MCP_TOKEN", TOKEN)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cy-tools-app starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut seen = String::new();
        let url = loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap() == 0 {
                let _ = child.wait();
                panic!("`mcp --http` exited before it served; its stderr:\n{seen}");
            }
            if let Some(rest) = line.strip_prefix("serving MCP over streamable HTTP at ") {
                break rest.split_whitespace().next().unwrap().to_string();
            }
            seen.push_str(&line);
        };
        // The rest of stderr (logs, panics) to the test's own, so the pipe never fills.
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            eprint!("{rest}");
        });
        HttpMcp { child, url }
    }
}

impl HttpMcp {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the server to exit, failing the test if it takes longer than `within` from
    /// `since`.
    pub fn exits(&mut self, since: Instant, within: Duration) {
        loop {
            if self.child.try_wait().unwrap().is_some() {
                let took = since.elapsed();
                assert!(
                    took <= within,
                    "stopped after {took:?}, more than {within:?}"
                );
                return;
            }
            assert!(
                since.elapsed() <= within + Duration::from_secs(5),
                "the server did not stop"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Starts `tools/call` of `tool` on a connection of its own, and leaves it running: the
    /// returned socket is the client, which never reads.
    pub fn start_call(&self, tool: &str, arguments: Value) -> TcpStream {
        let addr = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
            },
        }})
        .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        stream
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
