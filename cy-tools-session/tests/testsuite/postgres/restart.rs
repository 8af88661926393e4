//! The server restarted under a call: the call's record waits for it and is written once when
//! it is back (nothing lost); a server gone for longer than the retry window is reported with
//! what to check, and everything stored before is there once it returns.
//!
//! Each test restarts a server of its own (`support::postgres::PrivateServer`), not the one
//! the other tests share.

use std::time::{Duration, Instant};

use cy_tools::{CancellationToken, ToolCall, services::ServiceErrorKind, session::SpecStore};
use cy_tools_session::store::PostgresStore;
use serde_json::json;

use super::{factory, runtime, settings, spec};
use crate::support::postgres::{PrivateServer, tenant, url};

#[test]
fn a_call_whose_server_restarts_under_it_is_recorded_once() {
    // Needs `scripts/postgres-for-tests` to work here, which the shared server shows.
    if url().is_none() {
        return;
    }
    let server = PrivateServer::start("restart");
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let store = PostgresStore::connect_with(&server.url, settings())
            .await
            .unwrap();
        let t = tenant("restart");
        let factory = factory(&store, &t);
        let session = factory
            .create(spec("s-1", &t, dir.path()).with_tools(["write_file"]))
            .await
            .unwrap();
        let cancel = CancellationToken::new();
        let before = session
            .execute(
                "write_file",
                ToolCall::new("c1", json!({"path": "a.txt", "content": "a"})),
                &cancel,
            )
            .await;
        assert!(!before.is_error);
        // The call runs 1 s; the server goes down under it and comes back 3 s later, so the
        // record is written on a new connection, after retries.
        let call = {
            let session = session.clone();
            tokio::spawn(async move {
                let code = "sleep 1; echo slept";
                session
                    .execute(
                        "execute_code",
                        ToolCall::new("c2", json!({"code": code, "filename": "s.sh"})),
                        &CancellationToken::new(),
                    )
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        let down = Instant::now();
        tokio::task::block_in_place(|| server.down());
        tokio::time::sleep(Duration::from_secs(3)).await;
        tokio::task::block_in_place(|| server.up());
        let result = call.await.unwrap();
        assert_eq!(crate::support::outcome::text(&result), "slept");
        println!("server down for {:?}", down.elapsed());
        let calls: Vec<String> = session
            .entries()
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.call_id)
            .collect();
        assert_eq!(
            calls,
            ["c1", "c2"],
            "the record of the call made while the server was away, once"
        );
        assert_eq!(store.tenant(&t).call_count().await.unwrap(), 2);
    });
}

#[test]
fn a_server_gone_past_the_retry_window_is_reported_with_what_to_check() {
    if url().is_none() {
        return;
    }
    let server = PrivateServer::start("gone");
    let dir = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let store = PostgresStore::connect_with(
            &server.url,
            settings().with_retry_for(Duration::from_secs(2)),
        )
        .await
        .unwrap();
        let t = tenant("gone");
        let factory = factory(&store, &t);
        let session = factory
            .create(spec("s-1", &t, dir.path()).with_tools(["write_file"]))
            .await
            .unwrap();
        let cancel = CancellationToken::new();
        session
            .execute(
                "write_file",
                ToolCall::new("c1", json!({"path": "a.txt", "content": "a"})),
                &cancel,
            )
            .await;

        tokio::task::block_in_place(|| server.down());
        let started = Instant::now();
        let err = factory.resume("s-1").await.unwrap_err();
        let waited = started.elapsed();
        assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
        let text = err.to_string();
        let port = server.port;
        for part in [
            format!(
                "the session store at `postgres://cy@127.0.0.1:{port}/cy` could not be reached for"
            ),
            "while loading a session spec".to_string(),
            format!("`pg_isready -h 127.0.0.1 -p {port}`"),
            "`--store` or `CY_TOOLS_STORE`".to_string(),
            "nothing stored before is lost".to_string(),
        ] {
            assert!(text.contains(&part), "`{part}` is not in: {text}");
        }
        assert!(!text.contains("secret"));
        assert!(
            waited >= Duration::from_millis(1500) && waited < Duration::from_secs(10),
            "retried for {waited:?}, with a window of 2 s"
        );
        // The tool's answer does not depend on the log: the model gets its result.
        let wrote = session
            .execute(
                "write_file",
                ToolCall::new("c2", json!({"path": "b.txt", "content": "b"})),
                &cancel,
            )
            .await;
        assert!(!wrote.is_error, "{}", crate::support::outcome::text(&wrote));

        tokio::task::block_in_place(|| server.up());
        let resumed = factory.resume("s-1").await.unwrap();
        let calls: Vec<String> = resumed
            .entries()
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.call_id)
            .collect();
        // c2's record was given up with the window (the host was told: a `tracing` error).
        assert_eq!(calls, ["c1"]);
        assert!(store.tenant(&t).load_spec("s-1").await.unwrap().is_some());
    });
}
