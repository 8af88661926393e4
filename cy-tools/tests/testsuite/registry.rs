//! The registry: link-time collection, names, order, and the skip callbacks.

use std::sync::{Arc, Mutex};

use crate::support::*;
use cy_tools::__private::inventory;
use cy_tools::{
    ToolRegistry,
    binding::{BindError, LeftOut, RegistryError, ToolRegistration},
};
use serde_json::json;

// The only link-time registrations in this test binary, so `linked()` holds exactly these four:
// a module that registers more must be named in `linked_collects_every_registration_sorted`.
inventory::submit!(ToolRegistration::new(&ADD, "registry_test::ADD"));
inventory::submit!(ToolRegistration::new(
    &READ_TEXT,
    "registry_test::READ_TEXT"
));
inventory::submit!(ToolRegistration::new(&SAY, "registry_test::SAY"));
inventory::submit!(ToolRegistration::new(&PING, "registry_test::PING"));

#[test]
fn linked_collects_every_registration_sorted() {
    let registry = ToolRegistry::linked().unwrap();
    assert_eq!(registry.names(), ["add", "ping", "read_text", "say"]);
    assert_eq!(registry.len(), 4);
    let listed: Vec<(&str, &str)> = registry
        .definitions()
        .map(|(name, def)| (name, def.description()))
        .collect();
    assert_eq!(listed[0], ("add", "Adds two integers."));
}

#[test]
fn build_keeps_the_listed_order_and_skips_through_the_callbacks() {
    let unknown = Arc::new(Mutex::new(Vec::<String>::new()));
    let unavailable = Arc::new(Mutex::new(Vec::<(String, BindError)>::new()));
    let registry = ToolRegistry::linked()
        .unwrap()
        .on_unknown({
            let unknown = unknown.clone();
            move |name| unknown.lock().unwrap().push(name.to_string())
        })
        .on_unavailable({
            let unavailable = unavailable.clone();
            move |name, err| {
                unavailable
                    .lock()
                    .unwrap()
                    .push((name.to_string(), err.clone()))
            }
        });
    // A subagent: sandbox, no chat.
    let ctx = session("child").with_env(Arc::new(cy_tools::memory::MemorySandbox::new()));
    let tools = registry.build(
        &["read_text", "web_search", "say", "add", "ping", "add"],
        &ctx,
    );
    assert_eq!(tools.names(), ["read_text", "add", "ping"]);
    assert_eq!(*unknown.lock().unwrap(), ["web_search"]);
    let unavailable = unavailable.lock().unwrap();
    assert_eq!(unavailable.len(), 1);
    assert_eq!(unavailable[0].0, "say");
    assert_eq!(
        unavailable[0].1.to_string(),
        "tool `say` needs capability `chat`, which session `child` does not provide; give the session's context that service, or leave the tool out of this session"
    );
}

#[test]
fn a_root_session_gets_the_messaging_tool_a_subagent_does_not() {
    let registry = ToolRegistry::linked().unwrap().on_unavailable(|_, _| {});
    let (root, _, _) = full_session("root");
    assert_eq!(
        registry.build(&["say", "read_text"], &root).names(),
        ["say", "read_text"]
    );
    let child = session("child").with_env(Arc::new(cy_tools::memory::MemorySandbox::new()));
    assert_eq!(
        registry.build(&["say", "read_text"], &child).names(),
        ["read_text"]
    );
}

/// A registry reads what binding needs of a definition once, at its first bind; every
/// session's context is still checked against it, in any order.
#[test]
fn each_build_checks_its_own_context_against_what_the_first_read() {
    let registry = ToolRegistry::linked().unwrap().on_unavailable(|_, _| {});
    let (root, _, _) = full_session("root");
    let child = session("child").with_env(Arc::new(cy_tools::memory::MemorySandbox::new()));
    for (ctx, expected) in [
        (&child, &["read_text"][..]),
        (&root, &["say", "read_text"][..]),
        (&child, &["read_text"][..]),
        (&root, &["say", "read_text"][..]),
    ] {
        assert_eq!(registry.build(&["say", "read_text"], ctx).names(), expected);
    }
    let report = registry.try_build(&["say"], &child).unwrap_err();
    let LeftOut::Unavailable(err) = &report.left_out[0].1 else {
        panic!("left out for another reason: {:?}", report.left_out);
    };
    assert_eq!(
        err.to_string(),
        "tool `say` needs capability `chat`, which session `child` does not provide; give the session's context that service, or leave the tool out of this session"
    );
}

/// A schema that is no tool schema is not remembered as one: every build says so.
#[test]
fn an_invalid_schema_is_reported_by_every_build() {
    let mut registry = ToolRegistry::new();
    registry
        .register("broken", &crate::raw_tools::BROKEN)
        .unwrap();
    for _ in 0..2 {
        let report = registry.try_build(&["broken"], session("s")).unwrap_err();
        assert!(report.tools.is_empty());
        assert!(
            matches!(
                report.left_out[0].1,
                LeftOut::Unavailable(BindError::InvalidSchema { .. })
            ),
            "{:?}",
            report.left_out
        );
    }
}

#[test]
fn register_refuses_duplicates_and_bad_names() {
    let mut registry = ToolRegistry::linked().unwrap();
    let err = registry.register("add", &PING).unwrap_err();
    assert_eq!(
        err,
        RegistryError::Duplicate {
            name: "add".into(),
            first: "registry_test::ADD".into(),
            second: "registered by hand as `add`".into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "two tools are registered as `add`: `registry_test::ADD` and `registered by hand as `add``; rename one (`#[tool(name = \"...\")]`) or register one with `register = false`"
    );
    let err = registry.register("bad name", &PING).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid tool name `bad name`: it contains ' '; use 1 to 128 ASCII letters, digits, `_`, `-` or `.` (MCP's rule for tool names)"
    );
}

#[tokio::test]
async fn a_tool_registered_under_another_name_answers_to_it() {
    let mut registry = ToolRegistry::new();
    registry.register("sum", &ADD).unwrap();
    let tools = registry.build(&["sum"], session("s"));
    assert_eq!(tools.names(), ["sum"]);
    let result = tools
        .execute("sum", call(json!({"a": 1, "b": 2})), &token())
        .await;
    assert_eq!(result.text_content(), "3");
    let result = tools
        .execute("add", call(json!({"a": 1, "b": 2})), &token())
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "unknown tool `add`; available tools are `sum`"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_definition_bound_into_ten_sessions_gives_ten_tools() {
    let registry = Arc::new(ToolRegistry::linked().unwrap());
    let mut handles = Vec::new();
    for i in 0..10 {
        let registry = registry.clone();
        handles.push(tokio::spawn(async move {
            let (ctx, _, chat) = full_session(&format!("s-{i}"));
            let tools = registry.build(&["say"], &ctx);
            let say = tools.get("say").unwrap();
            let result = say
                .execute(call(json!({"text": format!("hello from {i}")})), &token())
                .await;
            assert_eq!(result.text_content(), "sent");
            (i, say.session().session_id.clone(), chat.messages())
        }));
    }
    for handle in handles {
        let (i, id, messages) = handle.await.unwrap();
        assert_eq!(id, format!("s-{i}"));
        assert_eq!(messages.len(), 1, "session {i} chat saw {messages:?}");
        assert_eq!(messages[0].session_id, format!("s-{i}"));
        assert_eq!(messages[0].text, format!("hello from {i}"));
    }
}
