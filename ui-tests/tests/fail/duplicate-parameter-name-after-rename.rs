use cy_tools::tool;

/// Copy a file.
#[tool]
async fn copy(
    /// Where from.
    #[arg(rename = "path")]
    from: String,
    /// Where to.
    path: String,
) -> String {
    format!("{from} -> {path}")
}

fn main() {}
