//! `crate = path` for a runtime reached through a re-export.

mod runtime {
    pub use cy_tools as reexported;
}

use cy_tools::definition::Definition;

/// Count characters.
#[runtime::reexported::tool(crate = crate::runtime::reexported)]
async fn count(text: String) -> String {
    text.chars().count().to_string()
}

/// The same, with the path as a string.
#[runtime::reexported::tool(crate = "crate::runtime::reexported")]
async fn count_again(text: String) -> String {
    text.len().to_string()
}

fn main() {
    assert_eq!(COUNT.name(), "count");
    assert_eq!(COUNT_AGAIN.name(), "count_again");
}
