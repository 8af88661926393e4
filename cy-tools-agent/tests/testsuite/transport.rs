//! The loop's HTTP client: TLS to a server a test CA signed (the loop told to trust it, with
//! `AgentConfig::ca_file` or `SSL_CERT_FILE`), through an HTTP CONNECT proxy named in
//! `HTTPS_PROXY`, and one connection kept for all the turns of a run.

use cy_tools::CancellationToken;
use cy_tools::session::ModelProvider;
use cy_tools_agent::{Agent, AgentConfig, AgentErrorKind, Ending, Quiet, RetryPolicy};

use super::setup;
use crate::support::alone::alone;
use crate::support::connect_proxy::ConnectProxy;
use crate::support::fake_model::{FakeApi, Reply};

/// Nine turns that each call a tool, then the answer.
fn ten_turns() -> Vec<Reply> {
    let mut replies = vec![Reply::ok("openai/one_call.json"); 9];
    replies.push(Reply::ok("openai/plain.json"));
    replies
}

fn tls_config(url: &str) -> AgentConfig {
    let mut config =
        AgentConfig::new(ModelProvider::OpenAi, "gpt-fake").with_base_url(format!("{url}/v1"));
    config.api_key = Some("test-key".to_string());
    config.limits.max_turns = 10;
    config.retry = RetryPolicy {
        retries: 0,
        base_delay: std::time::Duration::from_millis(10),
    };
    config
}

/// The port of `url` (`https://127.0.0.1:PORT`).
fn port(url: &str) -> &str {
    url.rsplit(':').next().unwrap()
}

#[test]
fn ten_turns_over_tls_through_a_proxy_take_one_connection() {
    let api = FakeApi::start_tls(ten_turns());
    let proxy = ConnectProxy::start();
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("test-ca.pem");
    std::fs::write(&ca, api.ca_pem().unwrap()).unwrap();
    alone!(ten_turns_through_the_proxy_inner)
        .env("HTTPS_PROXY", proxy.url())
        .env("NO_PROXY", "")
        .env("SSL_CERT_FILE", &ca)
        .env("CY_TEST_MODEL_API", api.url())
        .run();
    assert_eq!(
        proxy.tunnels(),
        [format!("127.0.0.1:{}", port(&api.url()))],
        "every request goes through one tunnel of the proxy"
    );
    assert_eq!(api.requests().len(), 10);
    assert_eq!(
        api.connections(),
        1,
        "the ten turns share one connection to the API"
    );
}

#[tokio::test]
#[ignore = "run by its parent, in a process of its own (it needs HTTPS_PROXY and SSL_CERT_FILE)"]
async fn ten_turns_through_the_proxy_inner() {
    let url = std::env::var("CY_TEST_MODEL_API").unwrap();
    let setup = setup(&["read_file"]).await;
    let agent = Agent::new(tls_config(&url)).unwrap();
    let run = agent
        .run(
            &setup.session,
            "read it ten times",
            &CancellationToken::new(),
            &Quiet,
        )
        .await
        .unwrap();
    assert_eq!(
        (run.ending, run.turns),
        (
            Ending::Answer("The workspace holds one file, notes.txt.".to_string()),
            10
        )
    );
}

#[tokio::test]
async fn a_server_signed_by_the_configured_ca_is_trusted_and_one_no_root_knows_is_not() {
    let api = FakeApi::start_tls(ten_turns());
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("test-ca.pem");
    std::fs::write(&ca, api.ca_pem().unwrap()).unwrap();
    let setup = setup(&["read_file"]).await;

    // Mozilla's roots (and the system's bundle, where the environment's `SSL_CERT_FILE` names
    // it) do not know the test CA: the handshake fails, and the message says how to add a CA.
    let untrusted = Agent::new(tls_config(&api.url())).unwrap();
    let err = untrusted
        .run(&setup.session, "hello", &CancellationToken::new(), &Quiet)
        .await
        .unwrap_err();
    assert_eq!(err.kind(), AgentErrorKind::Provider);
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("cannot reach the model API at {}/v1: ", api.url()))
            && text.contains("invalid peer certificate: UnknownIssuer")
            && text.contains("the server's certificate is checked against Mozilla's roots")
            && text.contains("SSL_CERT_FILE"),
        "{text}"
    );
    assert_eq!(api.requests().len(), 0);

    let mut config = tls_config(&api.url());
    config.ca_file = Some(ca);
    let agent = Agent::new(config).unwrap();
    let run = agent
        .run(
            &setup.session,
            "read it ten times",
            &CancellationToken::new(),
            &Quiet,
        )
        .await
        .unwrap();
    assert_eq!(run.turns, 10);
    assert_eq!(api.requests().len(), 10);
    assert_eq!(
        api.requests()[9].header("authorization"),
        Some("Bearer test-key")
    );
    // The failed handshake's connection, then one for the ten turns.
    assert_eq!(api.connections(), 2);
}

#[test]
fn an_unreadable_ca_file_is_refused_when_the_loop_is_made() {
    let mut config = tls_config("https://127.0.0.1:9");
    config.ca_file = Some("/nonexistent/ca.pem".into());
    let err = Agent::new(config).unwrap_err();
    assert_eq!(err.kind(), AgentErrorKind::Usage);
    assert!(
        err.to_string().starts_with(
            "cannot read the CA file `/nonexistent/ca.pem` named by `AgentConfig::ca_file` (`--ca-file`): "
        ),
        "{err}"
    );
}
