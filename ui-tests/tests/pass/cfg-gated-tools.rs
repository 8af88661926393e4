//! A `#[cfg]` on the function gates everything generated for it.

use cy_tools::{ToolRegistry, tool};

/// Compiled in.
#[cfg(all())]
#[tool(capabilities(env))]
async fn kept(
    /// An argument with a default.
    #[arg(default = 2)]
    n: u8,
) -> String {
    n.to_string()
}

/// Compiled out, with everything it would generate.
#[cfg(any())]
#[tool(capabilities(env))]
async fn dropped(
    /// An argument with a default.
    #[arg(default = 2)]
    n: u8,
) -> String {
    n.to_string()
}

fn main() {
    assert_eq!(ToolRegistry::linked().unwrap().names(), ["kept"]);
    let _ = &KEPT;
}
