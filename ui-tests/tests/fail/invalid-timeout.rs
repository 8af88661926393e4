use cy_tools::tool;

/// Wait a while.
#[tool(timeout = "30 seconds")]
async fn wait() -> String {
    String::new()
}

fn main() {}
