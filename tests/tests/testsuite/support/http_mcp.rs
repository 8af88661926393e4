//! `cy-tools-app mcp --http 127.0.0.1:0`, started for a test and stopped when dropped, with the
//! URL it printed.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Stdio};

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
    /// Serves `tools` over `workspace`, with [`TOKEN`] and `extra` arguments.
    pub fn start(workspace: &Path, tools: &str, extra: &[&str]) -> HttpMcp {
        let mut child = app()
            .args(["mcp", "--http", "127.0.0.1:0", "--tools", tools, "--root"])
            .arg(workspace)
            .args(extra)
            .env("CY_TOOLS_MCP_TOKEN", TOKEN)
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

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
