//! HTTP/2 where the server offers it: a model API that speaks only HTTP/2 over TLS (ALPN `h2`,
//! hyper's server) gets every turn of a run as an HTTP/2 request, on one connection.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cy_tools::CancellationToken;
use cy_tools::session::ModelProvider;
use cy_tools_agent::{Agent, AgentConfig, Ending, Quiet};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, Version};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio_rustls::TlsAcceptor;

use super::setup;
use crate::support::fake_model::fixture;
use crate::support::test_ca::TestCa;

/// An HTTP/2-only fake of the API: the fixtures in order, the HTTP version of each request and
/// the connections it accepted.
struct H2Api {
    port: u16,
    ca: TestCa,
    versions: Arc<Mutex<Vec<Version>>>,
    connections: Arc<AtomicUsize>,
}

async fn start(fixtures: &[&str]) -> H2Api {
    let ca = TestCa::new();
    let mut config = (*ca.server_config()).clone();
    config.alpn_protocols = vec![b"h2".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let bodies: Arc<Mutex<VecDeque<String>>> =
        Arc::new(Mutex::new(fixtures.iter().map(|f| fixture(f)).collect()));
    let versions = Arc::new(Mutex::new(Vec::new()));
    let connections = Arc::new(AtomicUsize::new(0));
    let (seen, counted) = (Arc::clone(&versions), Arc::clone(&connections));
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let (acceptor, bodies, seen) =
                (acceptor.clone(), Arc::clone(&bodies), Arc::clone(&seen));
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let (bodies, seen) = (Arc::clone(&bodies), Arc::clone(&seen));
                    async move {
                        seen.lock().unwrap().push(request.version());
                        // The request is read whole before it is answered, as a server does.
                        let _ = request.into_body().collect().await;
                        let body = bodies.lock().unwrap().pop_front().unwrap_or_default();
                        let response = Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(Bytes::from(body)))
                            .unwrap();
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    H2Api {
        port,
        ca,
        versions,
        connections,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_offers_http2_gets_every_turn_over_it_on_one_connection() {
    let api = start(&[
        "openai/one_call.json",
        "openai/one_call.json",
        "openai/plain.json",
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("test-ca.pem");
    std::fs::write(&ca, api.ca.ca_pem()).unwrap();
    let setup = setup(&["read_file"]).await;
    let mut config = AgentConfig::new(ModelProvider::OpenAi, "gpt-fake")
        .with_base_url(format!("https://127.0.0.1:{}/v1", api.port));
    config.api_key = Some("test-key".to_string());
    config.ca_file = Some(ca);
    let run = Agent::new(config)
        .unwrap()
        .run(&setup.session, "read it", &CancellationToken::new(), &Quiet)
        .await
        .unwrap();
    assert_eq!(
        (run.ending, run.turns),
        (
            Ending::Answer("The workspace holds one file, notes.txt.".to_string()),
            3
        )
    );
    assert_eq!(*api.versions.lock().unwrap(), [Version::HTTP_2; 3]);
    assert_eq!(api.connections.load(Ordering::SeqCst), 1);
}
