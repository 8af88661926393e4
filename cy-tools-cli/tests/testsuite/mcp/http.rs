//! `cy-tools mcp --http`: the binary refuses an open address without a token, makes one and
//! prints how to connect when none is set, and serves loopback without one when told to.

use std::net::SocketAddr;

use serde_json::json;

use crate::support::mcp_client::{exchange, post};

const TOKEN: &str = "http-test-token-0123456789";

/// `cy-tools mcp --http ARGS` with `token` in `CY_TOOLS_MCP_TOKEN` (or none): its exit code
/// and stderr, for one that refuses to start.
fn refused(args: &[&str], token: Option<&str>) -> (Option<i32>, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"));
    command
        .args(["mcp", "--http"])
        .args(args)
        .args(["--tools", "read_file", "--root", "."]);
    match token {
        Some(token) => command.env("CY_TOOLS_MCP_TOKEN", token),
        None => command.env_remove("CY_TOOLS_MCP_TOKEN"),
    };
    let output = command.output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn the_binary_refuses_an_open_address_without_a_token() {
    let (code, stderr) = refused(&["0.0.0.0:0", "--no-token"], None);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: refusing to serve MCP on 0.0.0.0 without a token: anyone who can reach that address could run the tools; leave out `--no-token` (a token is then made and printed), or set `CY_TOOLS_MCP_TOKEN`"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    let (code, stderr) = refused(&["127.0.0.1:0", "--no-token"], Some(TOKEN));
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        "error: `--no-token` was given and `CY_TOOLS_MCP_TOKEN` is set; unset `CY_TOOLS_MCP_TOKEN` to serve without a token, or leave out `--no-token` to require it\n"
    );

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args([
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--tools",
            "read_file",
            "--root",
            ".",
        ])
        .env("CY_TOOLS_MCP_TOKEN", "short")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error: the token in `CY_TOOLS_MCP_TOKEN` is shorter than 16 characters; use a long random secret, such as the output of `openssl rand -hex 32`\n"
    );
}

/// `cy-tools mcp --http 127.0.0.1:0 ARGS` without `CY_TOOLS_MCP_TOKEN`, killed when dropped:
/// its address and what it printed before serving (up to and with its last notice line).
struct Binary {
    child: std::process::Child,
    addr: SocketAddr,
    printed: String,
    _workspace: tempfile::TempDir,
}

impl Binary {
    fn start(args: &[&str], lines: usize) -> Binary {
        use std::io::BufRead as _;
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cy-tools"))
            .args([
                "mcp",
                "--http",
                "127.0.0.1:0",
                "--tools",
                "read_file",
                "--root",
            ])
            .arg(dir.path())
            .args(args)
            .env_remove("CY_TOOLS_MCP_TOKEN")
            .env_remove("CY_TOOLS_LOG")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut printed = String::new();
        for _ in 0..lines {
            stderr.read_line(&mut printed).unwrap();
        }
        let url = printed
            .lines()
            .find_map(|line| line.strip_prefix("serving MCP over streamable HTTP at "))
            .unwrap_or_else(|| panic!("no address in {printed:?}"));
        let addr = url
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        Binary {
            child,
            addr,
            printed,
            _workspace: dir,
        }
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn the_binary_without_a_token_makes_one_and_prints_how_to_connect() {
    let server = Binary::start(&[], 5);
    let token = server
        .printed
        .lines()
        .find_map(|line| line.strip_prefix("    Authorization: Bearer "))
        .unwrap_or_else(|| panic!("no token printed: {:?}", server.printed));
    assert_eq!(token.len(), 64, "{token}");
    assert!(token.bytes().all(|b| b.is_ascii_hexdigit()), "{token}");
    let url = format!("http://{}/mcp", server.addr);
    assert_eq!(
        server.printed,
        format!(
            "serving MCP over streamable HTTP at {url} (bearer token required)\n\
             `CY_TOOLS_MCP_TOKEN` is not set, so this server made a token for this run; connect with the header\n\
             \x20   Authorization: Bearer {token}\n\
             for example: npx @modelcontextprotocol/inspector --cli {url} --header \"Authorization: Bearer {token}\" --method tools/list\n\
             (set `CY_TOOLS_MCP_TOKEN` to choose the token, or pass `--no-token` on a loopback address to serve without one)\n"
        )
    );
    // On loopback, where any local user can connect: without the token, refused.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let answer = exchange(server.addr, &post("/mcp", "", &list)).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    let header = format!("Authorization: Bearer {token}\r\n");
    let answer = exchange(server.addr, &post("/mcp", &header, &list)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json()["result"]["tools"][0]["name"], "read_file");

    // Another run, another token.
    let again = Binary::start(&[], 5);
    assert!(!again.printed.contains(token));
}

#[tokio::test]
async fn the_binary_with_no_token_serves_loopback_without_one_and_says_so() {
    let server = Binary::start(&["--no-token"], 1);
    assert_eq!(
        server.printed,
        format!(
            "serving MCP over streamable HTTP at http://{}/mcp (no token: every local user can call the tools)\n",
            server.addr
        )
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let answer = exchange(server.addr, &post("/mcp", "", &list)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}
