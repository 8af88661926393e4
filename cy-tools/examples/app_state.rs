//! A tool that reaches the application's own objects: an inventory the application owns is given
//! to the session, and a tool takes it as `State<'_, Inventory>`. A session without one does not
//! get the tool, and `try_build` says why.
//!
//! Run with `cargo run -p cy-tools --example app_state`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use cy_tools::prelude::*;
use serde_json::json;

/// The application's inventory: one object, shared by every session that is given it.
#[derive(Default)]
struct Inventory {
    stock: Mutex<BTreeMap<String, u32>>,
}

/// Adds items to the inventory and says how many there are now.
#[tool(idempotent = false)]
async fn stock_item(
    inventory: State<'_, Inventory>,
    /// The item's name.
    item: String,
    /// How many to add.
    #[arg(default = 1)]
    count: u32,
) -> String {
    let mut stock = inventory.stock.lock().unwrap_or_else(|e| e.into_inner());
    let total = stock.entry(item.clone()).or_default();
    *total += count;
    format!("{total} {item} in stock")
}

/// What the example shows, one line per step.
async fn run() -> Vec<String> {
    let registry = ToolRegistry::linked().expect("no duplicate tool names");
    let inventory = Arc::new(Inventory::default());
    let mut lines = Vec::new();

    // Two sessions of the same application share its one inventory.
    for session in ["shop-1", "shop-2"] {
        let context = ToolContext::new(SessionIdentity::root(session, "acme"))
            .with_shared_state(Arc::clone(&inventory));
        let tools = registry.build(&["stock_item"], &context);
        let call = ToolCall::new("c1", json!({"item": "pear", "count": 2}));
        let result = tools
            .execute("stock_item", call, &CancellationToken::new())
            .await;
        lines.push(format!("{session}: {}", result.text_content()));
    }

    // A session that was not given an inventory: the tool is left out, with the reason.
    let bare = ToolContext::new(SessionIdentity::root("shop-3", "acme"));
    match registry.try_build(&["stock_item"], &bare) {
        Ok(tools) => lines.push(format!("shop-3 tools: {:?}", tools.names())),
        Err(report) => lines.push(format!("shop-3: {report}")),
    }
    lines
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    for line in run().await {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_sessions_share_the_inventory_and_a_session_without_one_is_told_why() {
        let lines = super::run().await;
        assert_eq!(lines[0], "shop-1: 2 pear in stock");
        assert_eq!(lines[1], "shop-2: 4 pear in stock");
        assert_eq!(
            lines[2],
            "shop-3: 1 of the requested tools could not be bound:\n- `stock_item`: tool `stock_item` needs application state `app_state::Inventory`, which session `shop-3` does not provide; give the session's context one (`ToolContext::with_state`, or `with_state` on the session factory), or leave the tool out of this session"
        );
    }
}
