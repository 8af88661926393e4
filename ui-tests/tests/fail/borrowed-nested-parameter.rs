use cy_tools::tool;

/// Join words.
#[tool]
async fn join(words: Vec<&'static str>) -> String {
    words.join(" ")
}

fn main() {}
