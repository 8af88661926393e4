use cy_tools::tool;

/// Read a file.
#[tool]
async fn read_file(
    /// The file.
    #[arg(defualt = "a.txt")]
    path: String,
) -> String {
    path
}

fn main() {}
