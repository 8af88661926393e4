//! The smallest tool: a doc comment and an `async fn` without parameters.

use cy_tools::definition::Definition;
use cy_tools::{ToolRegistry, tool};

/// Answer `pong`.
#[tool]
async fn ping() -> &'static str {
    "pong"
}

fn main() {
    assert_eq!(PING.name(), "ping");
    assert_eq!(PING.description(), "Answer `pong`.");
    assert_eq!(PING.capabilities().to_string(), "none");
    assert_eq!(
        PING.schema().unwrap().value(),
        &serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    let registry = ToolRegistry::linked().unwrap();
    assert_eq!(registry.names(), ["ping"]);
}
