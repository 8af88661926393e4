use cy_tools::tool;

/// Echo any value.
#[tool]
async fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
