//! Siblings: a child signals another child of its parent by name or profile, and cannot reach
//! a session outside its own tree.

use std::sync::Arc;

use cy_tools::memory::{MemoryLog, MemorySpecs};
use cy_tools::{
    CancellationToken, Session, ToolCall, ToolRegistry, services::ChildRequest,
    session::SubagentProfile,
};
use cy_tools_session::LocalSessionFactory;
use serde_json::json;

use super::{runtime, spec};

/// A tree `root` with children `worker-1`, `worker-2` and `reviewer-3`, each with the
/// signalling tools.
pub(crate) async fn tree(
    factory: &LocalSessionFactory,
    root: cy_tools::SessionSpec,
) -> (Session, Session, Session, Session) {
    let signalling = ["signal", "wait_for_signal"];
    let parent = factory
        .create(
            root.with_tools(signalling)
                .with_subagent(SubagentProfile::new("worker", signalling))
                .with_subagent(SubagentProfile::new("reviewer", signalling)),
        )
        .await
        .unwrap();
    let child = |profile: &'static str| {
        let parent = parent.clone();
        async move {
            factory
                .spawn_child(&parent, ChildRequest::new(profile))
                .await
                .unwrap()
        }
    };
    let w1 = child("worker").await;
    let w2 = child("worker").await;
    let r1 = child("reviewer").await;
    (parent, w1, w2, r1)
}

pub(crate) async fn signal(from: &Session, to: &str, payload: &str) -> (bool, String) {
    let result = from
        .execute(
            "signal",
            ToolCall::new(
                "s",
                json!({"to": to, "name": "hand-off", "payload": payload}),
            ),
            &CancellationToken::new(),
        )
        .await;
    (result.is_error, result.text_content())
}

pub(crate) async fn wait(on: &Session) -> (bool, String) {
    let result = on
        .execute(
            "wait_for_signal",
            ToolCall::new("w", json!({"name": "hand-off", "timeout_ms": 2000})),
            &CancellationToken::new(),
        )
        .await;
    (result.is_error, result.text_content())
}

/// What every coordinator must do for siblings: run against the in-memory one here and the
/// PostgreSQL one in `postgres::siblings`.
pub(crate) async fn siblings_signal_each_other_within_their_tree_only(
    factory: &LocalSessionFactory,
    tenant: &str,
    p: &str,
    q: &str,
    dir: &std::path::Path,
) {
    let root = |id: &str| {
        let mut root = spec(id, &dir.join(id));
        root.identity.tenant = tenant.to_string();
        root
    };
    let (_parent, w1, w2, r1) = tree(factory, root(p)).await;
    let (_other, stranger, _, _) = tree(factory, root(q)).await;

    // By name.
    assert_eq!(
        signal(&w1, "worker-2", "rows.csv").await,
        (
            false,
            format!("signal `hand-off` sent to session `{p}.worker-2` (`worker-2`)")
        )
    );
    assert_eq!(
        wait(&w2).await,
        (
            false,
            format!("signal `hand-off` from session `{p}.worker-1`: rows.csv")
        )
    );
    // By profile, when one sibling has it; the sender itself does not count.
    assert_eq!(
        signal(&w1, "reviewer", "review me").await.1,
        format!("signal `hand-off` sent to session `{p}.reviewer-3` (`reviewer`)")
    );
    assert_eq!(
        wait(&r1).await.1,
        format!("signal `hand-off` from session `{p}.worker-1`: review me")
    );
    assert_eq!(
        signal(&w2, "worker", "to w1").await.1,
        format!("signal `hand-off` sent to session `{p}.worker-1` (`worker`)")
    );
    assert_eq!(
        wait(&w1).await.1,
        format!("signal `hand-off` from session `{p}.worker-2`: to w1")
    );
    // Two siblings share the profile: the model is told their names.
    assert_eq!(
        signal(&r1, "worker", "which?").await,
        (
            true,
            "`worker` names 2 siblings: `worker-1`, `worker-2`; give one's name".to_string()
        )
    );
    // The parent, by id, is in the tree.
    assert!(!signal(&w1, p, "done").await.0);

    // Another tree: refused by id, unknown by name.
    let stranger_id = stranger.id().to_string();
    assert_eq!(stranger_id, format!("{q}.worker-1"));
    assert_eq!(
        signal(&w1, &stranger_id, "hello").await,
        (
            true,
            format!(
                "session `{q}.worker-1` is outside this subagent's tree (root `{p}`); a subagent signals only its root's sessions: its parent, its siblings and their children"
            )
        )
    );
    assert!(
        signal(&w1, q, "hello")
            .await
            .1
            .contains("is outside this subagent's tree")
    );
    assert_eq!(
        signal(&w1, "nobody", "hello").await,
        (
            true,
            "no session `nobody` in this subagent's tree; its siblings are `worker-2`, `reviewer-3` (by name, or by profile when only one has it), or give a session's id".to_string()
        )
    );
    // Nothing reached the other tree.
    let (timed_out, _) = {
        let result = stranger
            .execute(
                "wait_for_signal",
                ToolCall::new("w", json!({"name": "hand-off", "timeout_ms": 50})),
                &CancellationToken::new(),
            )
            .await;
        (result.is_error, result.text_content())
    };
    assert!(timed_out, "a signal crossed trees");
}

#[test]
fn siblings_signal_each_other_by_name_and_profile_and_never_across_trees() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let factory = LocalSessionFactory::new(
            Arc::new(ToolRegistry::linked().unwrap()),
            Arc::new(MemorySpecs::new()),
            Arc::new(MemoryLog::new()),
        );
        siblings_signal_each_other_within_their_tree_only(&factory, "acme", "p", "q", dir.path())
            .await;
    });
}
