use cy_tools::tool;

/// Wait a while.
#[tool(timeout = "0s")]
async fn wait() -> String {
    String::new()
}

fn main() {}
