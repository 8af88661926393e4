//! `register = false` defines the tool without registering it; it can be registered by hand.

use cy_tools::{ToolRegistry, tool};

/// Registered at link time.
#[tool]
async fn linked() {}

/// Registered by hand only.
#[tool(register = false)]
async fn by_hand() {}

fn main() {
    let mut registry = ToolRegistry::linked().unwrap();
    assert_eq!(registry.names(), ["linked"]);
    registry.register("by_hand", &BY_HAND).unwrap();
    assert_eq!(registry.names(), ["by_hand", "linked"]);
}
