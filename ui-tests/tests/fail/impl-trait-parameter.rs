use cy_tools::tool;

/// Greet someone.
#[tool]
async fn greet(name: impl Into<String>) -> String {
    name.into()
}

fn main() {}
