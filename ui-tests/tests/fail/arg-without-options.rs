use cy_tools::tool;

/// Read a file.
#[tool]
async fn read_file(
    /// The file.
    #[arg]
    path: String,
) -> String {
    path
}

fn main() {}
