//! Signals are rows: one sent before anyone waits is kept, outlives the worker that sent it,
//! is taken once, in order; a wait without one ends at its timeout.

use std::time::{Duration, Instant};

use cy_tools::services::Coordinator;
use serde_json::json;

use super::{connect, runtime};
use crate::support::postgres::{tenant, url};

#[test]
fn signals_are_kept_taken_once_in_order_and_outlive_their_sender() {
    let Some(url) = url() else { return };
    runtime().block_on(async {
        let t = tenant("signals");
        {
            // A worker sends and goes away.
            let sender = connect(&url).await.tenant(&t);
            sender.signal("s-1", "ready", json!(1)).await.unwrap();
            sender.signal("s-1", "ready", json!(2)).await.unwrap();
            sender.signal("s-1", "other", json!("x")).await.unwrap();
        }
        // Another worker, started after it, takes them.
        let waiter = connect(&url).await.tenant(&t);
        let short = Duration::from_millis(50);
        assert_eq!(
            waiter.wait("s-1", "ready", short).await.unwrap(),
            Some(json!(1))
        );
        assert_eq!(
            waiter.wait("s-1", "ready", short).await.unwrap(),
            Some(json!(2))
        );
        let started = Instant::now();
        assert_eq!(
            waiter
                .wait("s-1", "ready", Duration::from_millis(300))
                .await
                .unwrap(),
            None
        );
        assert!(started.elapsed() >= Duration::from_millis(300));
        assert_eq!(waiter.wait("s-2", "other", short).await.unwrap(), None);
        assert_eq!(
            waiter.wait("s-1", "other", short).await.unwrap(),
            Some(json!("x"))
        );
    });
}

#[test]
fn a_waiter_wakes_on_a_signal_from_another_store_without_waiting_for_its_poll() {
    let Some(url) = url() else { return };
    runtime().block_on(async {
        let t = tenant("wake");
        // Polling every 10 s: only the notification can wake the waiter in time.
        let settings = super::settings().with_poll_every(Duration::from_secs(10));
        let waiter = cy_tools_session::store::PostgresStore::connect_with(&url, settings)
            .await
            .unwrap()
            .tenant(&t);
        let sender = connect(&url).await.tenant(&t);
        let mut latencies = Vec::new();
        for round in 0..20 {
            let waiting = {
                let waiter = waiter.clone();
                tokio::spawn(async move {
                    let got = waiter
                        .wait("s-1", "ping", Duration::from_secs(5))
                        .await
                        .unwrap();
                    (got, Instant::now())
                })
            };
            // Let the wait start (and the listener connect, the first time).
            tokio::time::sleep(Duration::from_millis(if round == 0 { 500 } else { 20 })).await;
            let sent = Instant::now();
            sender.signal("s-1", "ping", json!(round)).await.unwrap();
            let (got, woke) = waiting.await.unwrap();
            assert_eq!(got, Some(json!(round)));
            latencies.push(woke.duration_since(sent));
        }
        latencies.sort();
        println!(
            "wake-up latency in one process: p50 {:?}, max {:?}",
            latencies[10], latencies[19]
        );
        assert!(
            latencies[10] < Duration::from_secs(2),
            "a notification should wake the waiter long before its 10 s poll: {latencies:?}"
        );
    });
}
