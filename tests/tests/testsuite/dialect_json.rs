//! `Dialect::export_toolset_json`: the JSON text of a whole toolset is exactly the serialized
//! `export_toolset`, in every dialect, for every linked tool that binds to a session with
//! in-memory services (the MCP form is written from the borrowed schemas, so this is what
//! keeps the two forms from drifting apart).

use std::sync::Arc;

use cy_tools::memory::{MemoryChat, MemoryCoordinator, MemoryLog, MemorySandbox};
use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, Toolset, dialect::Dialect};
use cy_tools_builtin as _;
use cy_tools_tests as _;
use serde_json::Value;

fn linked_toolset() -> Toolset {
    let registry = ToolRegistry::linked().unwrap();
    let context = Arc::new(
        ToolContext::new(SessionIdentity::root("s-1", "acme"))
            .with_env(Arc::new(MemorySandbox::default()))
            .with_log(Arc::new(MemoryLog::default()))
            .with_coordinator(Arc::new(MemoryCoordinator::default()))
            .with_chat(Arc::new(MemoryChat::default())),
    );
    let tools = registry.build(&registry.names(), context);
    assert!(tools.len() >= 12, "only {} tools bound", tools.len());
    tools
}

#[test]
fn the_json_text_is_the_serialized_export_in_every_dialect() {
    let tools = linked_toolset();
    for dialect in Dialect::ALL {
        let expected = match dialect.export_toolset(&tools) {
            Ok(declarations) => Value::Array(declarations),
            Err(err) => {
                assert_eq!(
                    dialect.export_toolset_json(&tools).unwrap_err(),
                    err,
                    "{dialect}"
                );
                continue;
            }
        };
        let text = dialect.export_toolset_json(&tools).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, expected, "{dialect}");
    }
}
