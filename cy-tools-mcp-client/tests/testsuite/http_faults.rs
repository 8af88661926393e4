//! A streamable HTTP server that loses sessions (`http_fault_server.py`, standard library only):
//! a request the server answers 404 for a session it forgot is sent again on a new session (it
//! never ran), a call the server was running when its connection dropped answers an error
//! naming the server, and the next call works on a new session; a server that requires a
//! bearer token gets the one `bearer_env` names, and a wrong one is refused naming the server
//! and the variable.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cy_tools::session::McpServerSpec;
use serde_json::json;

use crate::support::session;

/// The HTTP fault server, in a folder of its own (its `refused.log`), killed when dropped.
struct Remote {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Remote {
    fn start(args: &[&str]) -> Remote {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new("python3")
            .arg(cy_tools_test_support::mcp_servers::http_fault_server())
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("{line:?}"));
        Remote { child, port, dir }
    }

    fn spec(&self) -> McpServerSpec {
        McpServerSpec {
            name: "remote".into(),
            url: Some(format!("http://127.0.0.1:{}/mcp", self.port)),
            ..McpServerSpec::default()
        }
    }

    fn refused(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("refused.log")).unwrap_or_default()
    }
}

#[tokio::test]
async fn a_lost_session_is_opened_again_without_orphaning_calls() {
    let remote = Remote::start(&[]);
    let f = session(&[remote.spec()]).await;
    let call = async |tool: &str, args| f.session.call(&format!("remote__{tool}"), args).await;
    assert_eq!(
        call("echo", json!({"text": "one"})).await.text_content(),
        "echo: one"
    );

    // It forgets the session: the next call is answered 404, and sent again on a new one.
    assert_eq!(call("forget", json!({})).await.text_content(), "forgot");
    let again = call("echo", json!({"text": "two"})).await;
    assert_eq!(
        (again.is_error, again.text_content().as_str()),
        (false, "echo: two")
    );
    assert!(
        remote.refused().contains("404 tools/call"),
        "{}",
        remote.refused()
    );

    // A call in flight the server answers 404 (it says it did not run it): sent again.
    let (slow, forgot) = tokio::join!(call("slow", json!({"seconds": 2, "then": "404"})), async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        call("forget", json!({})).await
    });
    assert_eq!(forgot.text_content(), "forgot");
    assert_eq!(
        (slow.is_error, slow.text_content().as_str()),
        (false, "slow done")
    );
    assert!(
        remote.refused().contains("404 in flight"),
        "{}",
        remote.refused()
    );

    // A call in flight whose connection drops (the server may have run it): an error naming
    // the server, and the next call works on a new session.
    let (slow, _) = tokio::join!(call("slow", json!({"seconds": 5, "then": "drop"})), async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        call("forget", json!({})).await
    });
    assert!(slow.is_error, "{}", slow.text_content());
    assert!(
        slow.text_content()
            .starts_with("MCP server `remote` stopped while `slow` ran (its connection failed: error sending request"),
        "{}",
        slow.text_content()
    );
    let after = call("echo", json!({"text": "three"})).await;
    assert_eq!(
        (after.is_error, after.text_content().as_str()),
        (false, "echo: three")
    );

    // A call whose answer was to come on an event stream when the session was lost (the
    // next request is answered 404): an error naming the server, not a call left waiting.
    let started = std::time::Instant::now();
    let (slow, after) = tokio::join!(call("slow", json!({"seconds": 20, "then": "sse"})), async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(call("forget", json!({})).await.text_content(), "forgot");
        call("echo", json!({"text": "four"})).await
    });
    assert_eq!(
        (slow.is_error, slow.text_content().as_str()),
        (
            true,
            "MCP server `remote` lost its HTTP session while `slow` ran (it answered 404: it restarted or expired the session); the call was not sent again since it may have run, and a new session is open, so call it again if it is safe to"
        )
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(
        (after.is_error, after.text_content().as_str()),
        (false, "echo: four")
    );
}

#[tokio::test]
async fn a_bearer_token_is_sent_and_a_wrong_one_refused() {
    // Variables cargo sets in every test's process hold the tokens, so the test sets none:
    // the server takes the crate's name, and the crate's version is a wrong token.
    let remote = Remote::start(&["--token", env!("CARGO_PKG_NAME")]);
    let good = McpServerSpec {
        bearer_env: Some("CARGO_PKG_NAME".into()),
        ..remote.spec()
    };
    let f = session(&[good]).await;
    let echoed = f
        .session
        .call("remote__echo", json!({"text": "with a token"}))
        .await;
    assert_eq!(echoed.text_content(), "echo: with a token");

    let dir = tempfile::tempdir().unwrap();
    let view = cy_tools_sandbox::LocalSandbox::new(dir.path())
        .unwrap()
        .env();
    let wrong = McpServerSpec {
        bearer_env: Some("CARGO_PKG_VERSION".into()),
        ..remote.spec()
    };
    let err = cy_tools_mcp_client::McpServers::start(&[wrong], &view)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("MCP server `remote`"), "{err}");
    eprintln!("WRONG: {err}");
    assert!(err.contains("`CARGO_PKG_VERSION`"), "{err}");
    assert!(
        remote
            .refused()
            .contains(&format!("401 Bearer {}", env!("CARGO_PKG_VERSION"))),
        "{}",
        remote.refused()
    );
    let err = cy_tools_mcp_client::McpServers::start(&[remote.spec()], &view)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("requires a bearer token (HTTP 401 Unauthorized); name the host variable holding it in the server's `bearer_env`"),
        "{err}"
    );
}
