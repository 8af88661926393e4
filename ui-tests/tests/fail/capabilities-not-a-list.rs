use cy_tools::tool;

/// Read a file.
#[tool(capabilities = "env")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
