//! The sandbox endpoint's batches: several read-only operations of one client answered in one
//! exchange, each as it would have been answered alone.
//!
//! A batch is checked whole before any of it runs (its own `scope` absent, 1 to
//! [`MAX_BATCH_OPS`] operations, each
//! [batchable](crate::sandbox::wire::SandboxOp::is_batchable), their answers within
//! [`MAX_BATCH_READ_BYTES`]) and refused with `400` otherwise, naming what is wrong. Then each
//! operation runs in its own view, confined and refused exactly as alone; a batch holds one run
//! slot, and runs at most [`AT_ONCE`] of its operations at a time.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::Poll;
use std::time::Instant;

use axum::http::StatusCode;
use axum::response::Response;
use cy_tools::services::ServiceErrorKind;

use super::execute::{ServerState, json_bytes, refuse};
use super::sandbox::perform_in;
use crate::executor::wire::ErrorReply;
use crate::sandbox::wire::{BatchResult, MAX_BATCH_OPS, MAX_BATCH_READ_BYTES, SandboxRequest};

/// Operations of one batch running at a time: a listing or a search runs on the blocking pool,
/// and one batch should not take more of it than a few lone requests would.
pub(super) const AT_ONCE: usize = 4;

/// Checks and runs a batch, and answers every operation's result in order.
pub(super) async fn answer(
    state: &ServerState,
    peer: SocketAddr,
    name: &str,
    scope: Option<String>,
    ops: Vec<SandboxRequest>,
) -> Response {
    if let Err(why) = check(scope.as_deref(), &ops) {
        tracing::warn!(%peer, workspace = %name, "refused a sandbox batch: {why}");
        return refuse(StatusCode::BAD_REQUEST, ServiceErrorKind::InvalidInput, why);
    }
    let started = Instant::now();
    let count = ops.len();
    let results = run_all(
        ops.into_iter()
            .map(|request| async move {
                perform_in(state, name, request.scope.as_deref(), request.op).await
            })
            .collect(),
        AT_ONCE,
    )
    .await;
    // Each done value is JSON already, so the reply is put together around them.
    let mut body = Vec::with_capacity(
        16 + results
            .iter()
            .map(|r| r.as_ref().map_or(64, |json| json.len() + 8))
            .sum::<usize>(),
    );
    body.extend_from_slice(b"{\"results\":[");
    let mut refused = 0;
    for (n, result) in results.into_iter().enumerate() {
        if n > 0 {
            body.push(b',');
        }
        match result {
            Ok(json) => {
                body.extend_from_slice(b"{\"ok\":");
                body.extend_from_slice(&json);
                body.push(b'}');
            }
            Err((status, err)) => {
                refused += 1;
                let ErrorReply { error, kind } = ErrorReply::from_error(&err);
                let status = (status != StatusCode::UNPROCESSABLE_ENTITY).then(|| status.as_u16());
                // A struct of strings and a number always serializes.
                let _ = serde_json::to_writer(
                    &mut body,
                    &BatchResult::Refused {
                        error,
                        kind,
                        status,
                    },
                );
            }
        }
    }
    body.extend_from_slice(b"]}");
    tracing::info!(
        %peer,
        workspace = %name,
        ops = count,
        refused,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "sandbox batch done"
    );
    json_bytes(StatusCode::OK, body)
}

/// Why the batch cannot run, if it cannot.
fn check(scope: Option<&str>, ops: &[SandboxRequest]) -> Result<(), String> {
    if scope.is_some() {
        return Err(
            "a batch names each operation's own `scope`; leave the batch's `scope` out".into(),
        );
    }
    if ops.is_empty() {
        return Err("a batch needs at least one operation in `ops`".into());
    }
    if ops.len() > MAX_BATCH_OPS {
        return Err(format!(
            "a batch of {} operations is over this server's {MAX_BATCH_OPS}; send at most {MAX_BATCH_OPS} at once",
            ops.len()
        ));
    }
    if let Some(op) = ops.iter().map(|r| &r.op).find(|op| !op.is_batchable()) {
        return Err(format!(
            "operation `{}` cannot go in a batch: only `read`, `read_range`, `stat`, `list_dir`, `walk` and `search` can; send it alone",
            op.name()
        ));
    }
    let asked = ops
        .iter()
        .fold(0usize, |sum, r| sum.saturating_add(r.op.answer_budget()));
    if asked > MAX_BATCH_READ_BYTES {
        return Err(format!(
            "a batch asking for {asked} bytes of file data and listings is over this server's {MAX_BATCH_READ_BYTES}; send fewer reads (or smaller ones) at once"
        ));
    }
    Ok(())
}

/// The outputs of `futures`, in order, running at most `at_once` of them at a time.
async fn run_all<F: Future>(futures: Vec<F>, at_once: usize) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    let mut running: Vec<usize> = Vec::with_capacity(at_once);
    let mut next = 0;
    std::future::poll_fn(|cx| {
        while running.len() < at_once.max(1) && next < futures.len() {
            running.push(next);
            next += 1;
        }
        let mut i = 0;
        while i < running.len() {
            let n = running[i];
            match futures[n].as_mut().poll(cx) {
                Poll::Ready(output) => {
                    outputs[n] = Some(output);
                    // The last one running takes this place, and polls in its turn.
                    running.swap_remove(i);
                    if next < futures.len() {
                        running.push(next);
                        next += 1;
                    }
                }
                Poll::Pending => i += 1,
            }
        }
        if running.is_empty() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::wire::SandboxOp;

    fn read(path: &str, max_len: usize) -> SandboxRequest {
        SandboxRequest {
            scope: None,
            op: SandboxOp::ReadRange {
                path: path.into(),
                offset: 0,
                max_len,
            },
        }
    }

    #[test]
    fn a_batch_is_checked_whole() {
        check(None, &[read("a", 10)]).unwrap();
        let too_many: Vec<_> = (0..=MAX_BATCH_OPS).map(|_| read("a", 1)).collect();
        for (scope, ops, says) in [
            (
                Some("child"),
                vec![read("a", 1)],
                "leave the batch's `scope` out",
            ),
            (None, vec![], "at least one operation"),
            (
                None,
                too_many,
                "a batch of 65 operations is over this server's 64",
            ),
            (
                None,
                vec![
                    read("a", 1),
                    SandboxRequest {
                        scope: None,
                        op: SandboxOp::Remove { path: "a".into() },
                    },
                ],
                "operation `remove` cannot go in a batch",
            ),
            (
                None,
                vec![
                    read("a", 1),
                    SandboxRequest {
                        scope: None,
                        op: SandboxOp::Batch { ops: vec![] },
                    },
                ],
                "operation `batch` cannot go in a batch",
            ),
            (
                None,
                vec![read("a", MAX_BATCH_READ_BYTES), read("b", 1)],
                "a batch asking for 8388609 bytes",
            ),
            (
                None,
                vec![read("a", usize::MAX), read("b", usize::MAX)],
                "over this server's 8388608",
            ),
        ] {
            let why = check(scope, &ops).unwrap_err();
            assert!(why.contains(says), "{why}");
        }
    }

    #[tokio::test]
    async fn run_all_keeps_the_order_and_the_bound() {
        let running = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let most = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let futures = (0..10u64)
            .map(|n| {
                let (running, most) = (running.clone(), most.clone());
                async move {
                    use std::sync::atomic::Ordering::SeqCst;
                    let now = running.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(now, SeqCst);
                    // Later ones finish first, so the order is the caller's, not completion's.
                    tokio::time::sleep(std::time::Duration::from_millis(20 - 2 * n)).await;
                    running.fetch_sub(1, SeqCst);
                    n
                }
            })
            .collect();
        assert_eq!(run_all(futures, 3).await, (0..10).collect::<Vec<_>>());
        assert_eq!(most.load(std::sync::atomic::Ordering::SeqCst), 3);
    }
}
