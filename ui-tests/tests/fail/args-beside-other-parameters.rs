use cy_tools::tool;

/// The numbers.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

/// Add two numbers, maybe negated.
#[tool]
async fn add(#[args] pair: Pair, negate: bool) -> String {
    let sum = pair.a + pair.b;
    (if negate { -sum } else { sum }).to_string()
}

fn main() {}
