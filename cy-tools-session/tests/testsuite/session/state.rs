//! Application state given to a factory reaches every session it builds: roots, their
//! children and resumed sessions; a factory without it leaves the tools that need it out.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use cy_tools::prelude::*;
use cy_tools::{services::ChildRequest, session::SubagentProfile};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use super::{runtime, spec};

/// The application's own object: a counter every session shares.
struct Visits(AtomicU32);

/// Count a visit and say how many there were.
#[tool(register = false)]
async fn count_visit(visits: State<'_, Visits>) -> String {
    (visits.0.fetch_add(1, Ordering::SeqCst) + 1).to_string()
}

fn registry() -> Arc<ToolRegistry> {
    let mut registry = ToolRegistry::linked().unwrap();
    registry.register("count_visit", &COUNT_VISIT).unwrap();
    Arc::new(registry)
}

fn new_factory(dir: &std::path::Path) -> LocalSessionFactory {
    let store = SqliteStore::open(dir.join("sessions.db")).unwrap();
    LocalSessionFactory::with_sqlite(registry(), store)
}

async fn visit(session: &cy_tools::Session) -> String {
    session
        .execute(
            "count_visit",
            ToolCall::new("c", json!({})),
            &CancellationToken::new(),
        )
        .await
        .text_content()
}

#[test]
fn every_session_of_a_factory_shares_its_state_and_a_factory_without_it_leaves_the_tool_out() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let visits = Arc::new(Visits(AtomicU32::new(0)));
        let factory = new_factory(dir.path()).with_shared_state(Arc::clone(&visits));
        let root_spec = spec("root", &dir.path().join("w"))
            .with_tools(["count_visit", "read_file"])
            .with_subagent(SubagentProfile::new("helper", ["count_visit"]));
        let root = factory.create(root_spec).await.unwrap();
        assert_eq!(visit(&root).await, "1");

        let child = factory
            .spawn_child(&root, ChildRequest::new("helper"))
            .await
            .unwrap();
        assert!(child.tools().names().contains(&"count_visit"));
        assert_eq!(visit(&child).await, "2");

        let resumed = factory.resume("root").await.unwrap();
        assert_eq!(visit(&resumed).await, "3");
        assert_eq!(visits.0.load(Ordering::SeqCst), 3);

        // The same spec, resumed by a factory that was given no `Visits`: the tool is left
        // out (so the model never sees a tool that cannot work), the others stay.
        let bare = new_factory(dir.path());
        let resumed = bare.resume("root").await.unwrap();
        assert_eq!(
            resumed.tools().names(),
            ["execute_code", "read_file", "delegate", "workflow"]
        );
        let answer = visit(&resumed).await;
        assert!(answer.starts_with("unknown tool `count_visit`"), "{answer}");
    });
}
