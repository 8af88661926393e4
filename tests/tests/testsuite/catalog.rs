//! The application's resources and prompt as a session binds them: what a client is shown of
//! the prompt's arguments (a reviewed snapshot), and what binding leaves out of a session that
//! lacks what they need, saying why.

use std::sync::Arc;

use cy_tools::catalog::{CatalogRegistry, Prompt, Resource};
use cy_tools::memory::MemorySandbox;
use cy_tools::{SessionIdentity, ToolContext};
use cy_tools_tests::app_catalog;
use serde_json::json;

#[test]
fn the_prompts_arguments_as_a_client_sees_them() {
    let registry = CatalogRegistry::linked().unwrap();
    let context = Arc::new(ToolContext::local().with_env(Arc::new(MemorySandbox::new())));
    let (catalog, left_out) = registry.build(&[] as &[&str], &["summarize_file"], &context);
    assert!(left_out.is_empty(), "{left_out:?}");
    let prompt = &catalog.prompts()[0];
    let meta = app_catalog::SUMMARIZE_FILE.meta();
    insta::assert_json_snapshot!(
        "summarize_file",
        json!({
            "name": meta.name(),
            "title": meta.title(),
            "description": meta.description(),
            "capabilities": app_catalog::SUMMARIZE_FILE.capabilities().to_string(),
            "arguments": prompt.arguments(),
            "schema": app_catalog::SUMMARIZE_FILE.schema().unwrap().value(),
        })
    );
}

#[test]
fn a_session_without_a_workspace_leaves_out_what_reads_one() {
    let registry = CatalogRegistry::linked().unwrap();
    // No sandbox: `workspace_file` and `summarize_file` declare `env`.
    let bare = Arc::new(ToolContext::new(SessionIdentity::root("s-1", "acme")));
    let (catalog, left_out) = registry.build(
        &["about_app", "workspace_file", "nope"],
        &["summarize_file"],
        &bare,
    );
    assert_eq!(catalog.resources().len(), 1);
    assert_eq!(catalog.resources()[0].name(), "about_app");
    assert!(catalog.prompts().is_empty());
    let why: Vec<(&str, &str)> = left_out
        .iter()
        .map(|(name, why)| (name.as_str(), why.as_str()))
        .collect();
    assert_eq!(
        why[0],
        (
            "workspace_file",
            "resource `workspace_file` needs capability `env`, which session `s-1` does not provide; give the session's context that service, or leave the resource out of this session"
        )
    );
    assert_eq!(why[1].0, "nope");
    assert!(
        why[1].1.starts_with(
            "no resource is registered as `nope`; registered resources are `about_app`, "
        ),
        "{}",
        why[1].1
    );
    assert_eq!(
        why[2],
        (
            "summarize_file",
            "prompt `summarize_file` needs capability `env`, which session `s-1` does not provide; give the session's context that service, or leave the prompt out of this session"
        )
    );
    let about: &dyn Resource = &app_catalog::ABOUT_APP;
    assert_eq!(about.meta().title(), Some("About"));
}
