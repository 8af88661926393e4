//! A tool that takes application state: bound and called where the session holds it, left out
//! with the reason where it does not.
use std::sync::Mutex;

use cy_tools::binding::{BindError, LeftOut};
use cy_tools::prelude::*;

/// The application's own object.
struct Inventory {
    items: Mutex<Vec<String>>,
}

/// Add an item to the inventory.
#[tool(register = false)]
async fn add_item(
    inventory: State<'_, Inventory>,
    /** The item. */
    item: String,
) -> String {
    let mut items = inventory.items.lock().unwrap();
    items.push(item);
    format!("{} items", items.len())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut registry = ToolRegistry::new();
    registry.register("add_item", &ADD_ITEM).unwrap();

    let with = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_state(Inventory {
        items: Mutex::new(vec!["apple".into()]),
    });
    let tools = registry.try_build(&["add_item"], &with).unwrap();
    let result = runtime.block_on(tools.execute(
        "add_item",
        ToolCall::new("c1", serde_json::json!({"item": "pear"})),
        &CancellationToken::new(),
    ));
    assert_eq!(result.text_content(), "2 items");
    assert_eq!(
        with.state::<Inventory>()
            .unwrap()
            .items
            .lock()
            .unwrap()
            .len(),
        2
    );

    let without = ToolContext::new(SessionIdentity::root("s-2", "acme"));
    let report = registry.try_build(&["add_item"], &without).unwrap_err();
    assert!(report.tools.is_empty());
    let (name, why) = &report.left_out[0];
    assert_eq!(name, "add_item");
    let LeftOut::Unavailable(err @ BindError::MissingState { .. }) = why else {
        panic!("left out for another reason: {why:?}");
    };
    // The type's path names the crate, which trybuild names after the case.
    let message = err.to_string();
    assert!(
        message.starts_with("tool `add_item` needs application state `")
            && message.contains("::Inventory`, which session `s-2` does not provide; \
                 give the session's context one (`ToolContext::with_state`, or `with_state` on the session factory), or leave the tool out of this session"),
        "{message}"
    );
}
