use cy_tools::tool;

/// The numbers.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

/// Add two numbers.
#[tool]
async fn add(#[args(flatten)] pair: Pair) -> String {
    (pair.a + pair.b).to_string()
}

fn main() {}
