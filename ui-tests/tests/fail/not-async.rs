use cy_tools::tool;

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_string()
}

fn main() {}
