//! Resources and prompts named by a spec: the factory binds them into the session (a resumed
//! one too), a child gets what its profile names and no others, a grandchild's profile is cut
//! to its parent's, and a tool reaches the session's `ResourceUpdates` as state.

use cy_tools::catalog::{CatalogRegistry, ResourceUpdates};
use cy_tools::prelude::*;
use cy_tools::{services::ChildRequest, session::SubagentProfile};
use cy_tools_session::LocalSessionFactory;
use cy_tools_session::store::SqliteStore;
use serde_json::json;

use super::{runtime, spec};

/// The session's notes file.
#[resource(uri = "notes://today", mime_type = "text/plain", capabilities(env))]
async fn session_notes(ctx: Ctx<'_>) -> Result<String, ToolError> {
    Ok(String::from_utf8_lossy(&ctx.env().read("notes.txt").await?).into_owned())
}

/// A greeting.
#[resource(uri = "notes://greeting")]
async fn session_greeting() -> &'static str {
    "hello"
}

/// Asks for a plan.
#[prompt]
async fn plan_prompt(
    /** The goal. */
    goal: String,
) -> String {
    format!("Plan how to {goal}.")
}

/// Say the notes changed.
#[tool(destructive = false, open_world = false)]
async fn notes_changed(updates: State<'_, ResourceUpdates>) -> &'static str {
    updates.updated("notes://today");
    "said"
}

fn names(session: &Session) -> (Vec<&str>, Vec<&str>) {
    let catalog = session.catalog();
    (
        catalog.resources().iter().map(|r| r.name()).collect(),
        catalog.prompts().iter().map(|p| p.name()).collect(),
    )
}

#[test]
fn a_spec_names_resources_and_prompts_and_children_get_their_profiles() {
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
        let factory = LocalSessionFactory::with_sqlite(
            std::sync::Arc::new(ToolRegistry::linked().unwrap()),
            store,
        );
        assert!(
            CatalogRegistry::linked()
                .unwrap()
                .resource_names()
                .contains(&"session_notes")
        );
        let workspace = dir.path().join("w");
        let root_spec = spec("root", &workspace)
            .with_tools(["notes_changed", "delegate"])
            .with_resources(["session_notes", "session_greeting", "not_registered"])
            .with_prompts(["plan_prompt"])
            .with_subagent(
                SubagentProfile::new("planner", ["delegate"])
                    .with_catalog(["session_greeting"], ["plan_prompt"]),
            )
            .with_subagent(
                // Asks for more than `planner` has: its children get `planner`'s at most.
                SubagentProfile::new("wide", Vec::<String>::new())
                    .with_catalog(["session_notes", "session_greeting"], ["plan_prompt"]),
            );
        let root = factory.create(root_spec).await.unwrap();
        // The unregistered name is left out (with a warning), as an unknown tool is.
        assert_eq!(
            names(&root),
            (
                vec!["session_notes", "session_greeting"],
                vec!["plan_prompt"]
            )
        );
        std::fs::write(workspace.join("notes.txt"), "buy milk").unwrap();
        let cancel = CancellationToken::new();
        let read = root.catalog().read("notes://today", &cancel).await.unwrap();
        assert_eq!(serde_json::to_value(&read[0]).unwrap()["text"], "buy milk");

        // A tool says a resource changed on the hub the catalog announces on.
        let mut listener = root.catalog().updates().listen();
        let said = root
            .execute("notes_changed", ToolCall::new("c1", json!({})), &cancel)
            .await;
        assert!(!said.is_error, "{said:?}");
        assert_eq!(listener.next().await.as_deref(), Some("notes://today"));

        let resumed = factory.resume("root").await.unwrap();
        assert_eq!(names(&resumed), names(&root));

        let child = factory
            .spawn_child(&root, ChildRequest::new("planner"))
            .await
            .unwrap();
        assert_eq!(
            names(&child),
            (vec!["session_greeting"], vec!["plan_prompt"])
        );
        let spec = child.spec().unwrap();
        let wide = spec.subagents.iter().find(|p| p.name == "wide").unwrap();
        assert_eq!(wide.resources, ["session_greeting"]);
        assert_eq!(wide.prompts, ["plan_prompt"]);
    });
}
