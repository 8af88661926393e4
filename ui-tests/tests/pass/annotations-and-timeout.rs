//! Annotations, a title and a timeout; `description = "..."` wins over the doc comment.

use std::time::Duration;

use cy_tools::definition::Definition;
use cy_tools::{definition::ToolAnnotations, tool};

/// For people reading the code.
#[tool(
    description = "For the model.",
    read_only,
    idempotent,
    open_world = false,
    title = "Look up",
    timeout = "2m"
)]
async fn look_up() {}

/// Writes, but never destroys.
#[tool(destructive = false, timeout = "250ms")]
async fn append() {}

fn main() {
    assert_eq!(LOOK_UP.description(), "For the model.");
    assert_eq!(
        LOOK_UP.annotations(),
        ToolAnnotations::DEFAULT
            .read_only()
            .idempotent()
            .open_world(false)
            .title("Look up")
    );
    assert_eq!(LOOK_UP.timeout(), Some(Duration::from_secs(120)));
    assert_eq!(
        APPEND.annotations(),
        ToolAnnotations::DEFAULT.destructive(false)
    );
    assert_eq!(APPEND.timeout(), Some(Duration::from_millis(250)));
}
