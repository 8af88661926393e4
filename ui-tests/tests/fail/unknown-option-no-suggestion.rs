use cy_tools::tool;

/// Read a file.
#[tool(retries = 3)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
