use cy_tools::tool;

/// Count the words.
#[tool]
async fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {}
