//! An existing parameter struct taken whole with `#[args]`, with a renamed tool.

use cy_tools::definition::Definition;
use cy_tools::tool;

/// The numbers to add.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Pair {
    /// The first.
    a: i64,
    /// The second.
    b: i64,
}

/// Add two numbers.
#[tool(name = "add_numbers")]
async fn add(#[args] pair: Pair) -> String {
    (pair.a + pair.b).to_string()
}

fn main() {
    assert_eq!(ADD.name(), "add_numbers");
    assert_eq!(
        ADD.schema().unwrap().field_list(),
        "`a` (integer, required), `b` (integer, required)"
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(runtime.block_on(add(Pair { a: 1, b: 2 })), "3");
}
