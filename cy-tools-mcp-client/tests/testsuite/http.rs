//! A server reached over streamable HTTP (`url`): `server-everything` (npm) in its
//! `streamableHttp` mode, started here as a remote server would run. Its tools are listed and
//! called; when it restarts (its sessions lost) the call that finds it gone answers an error
//! naming it and the next call opens a new session; a token whose variable is not set is
//! refused naming the variable.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cy_tools::session::McpServerSpec;
use serde_json::json;

use crate::support::{installed, session};

/// `server-everything` over HTTP on `port`, killed when dropped.
struct Remote(Child);

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn remote(modules: &std::path::Path, port: u16) -> Remote {
    let script = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    let server = Remote(
        Command::new("node")
            .arg(script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("server-everything did not listen on port {port}");
}

fn spec(port: u16) -> McpServerSpec {
    McpServerSpec {
        name: "remote".into(),
        url: Some(format!("http://127.0.0.1:{port}/mcp")),
        ..McpServerSpec::default()
    }
}

#[tokio::test]
async fn a_server_over_http_is_called_and_reconnected_after_it_restarts() {
    let Some(modules) = installed("CY_MCP_SERVERS") else {
        return;
    };
    let port = free_port();
    let server = remote(&modules, port).await;
    let f = session(&[spec(port)]).await;
    let echoed = f
        .session
        .call("remote__echo", json!({"message": "over http"}))
        .await;
    assert_eq!(echoed.text_content(), "Echo: over http");

    // It restarts: the session it knew is gone.
    drop(server);
    let _server = remote(&modules, port).await;
    let first = f
        .session
        .call("remote__echo", json!({"message": "again"}))
        .await;
    let answered = if first.is_error {
        assert!(
            first
                .text_content()
                .starts_with("MCP server `remote` stopped while `echo` ran"),
            "{}",
            first.text_content()
        );
        f.session
            .call("remote__echo", json!({"message": "again"}))
            .await
    } else {
        first
    };
    assert_eq!(
        (answered.is_error, answered.text_content().as_str()),
        (false, "Echo: again")
    );
}

#[tokio::test]
async fn a_token_variable_that_is_not_set_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let view = cy_tools_sandbox::LocalSandbox::new(dir.path())
        .unwrap()
        .env();
    let spec = McpServerSpec {
        bearer_env: Some("CY_TEST_NO_SUCH_TOKEN".into()),
        ..spec(free_port())
    };
    let err = cy_tools_mcp_client::McpServers::start(&[spec], &view)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP server `remote`'s token is to be in the host variable `CY_TEST_NO_SUCH_TOKEN`, which is not set here; set it on this worker, or remove `bearer_env`"
    );
}
