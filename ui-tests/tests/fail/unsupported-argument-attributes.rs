use cy_tools::tool;

/// Search.
#[tool]
async fn search(
    /// What to look for.
    #[serde(with = "my_format", alias = "q")]
    query: String,
    /// How many.
    #[schemars(rename = "count", rnage(min = 1))]
    limit: u32,
    /// Where.
    #[schemars(with = "String")]
    place: String,
) -> String {
    let _ = (limit, place);
    query
}

fn main() {}
