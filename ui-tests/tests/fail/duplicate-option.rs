use cy_tools::tool;

/// Read a file.
#[tool(read_only, name = "read", read_only)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
