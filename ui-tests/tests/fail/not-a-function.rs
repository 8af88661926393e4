use cy_tools::tool;

/// Not a function.
#[tool]
struct ReadFile {
    path: String,
}

fn main() {}
