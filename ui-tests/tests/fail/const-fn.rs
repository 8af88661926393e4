use cy_tools::tool;

/// A constant answer.
#[tool]
const fn answer() -> u64 {
    42
}

fn main() {}
