use cy_tools::tool;

/// List files.
#[tool]
async fn list(
    /// How many.
    #[arg(default = Some(10))]
    limit: Option<u32>,
) -> String {
    format!("{limit:?}")
}

fn main() {}
