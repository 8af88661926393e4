use cy_tools::tool;

/// Read a file.
#[tool]
async fn read_file() -> String {
    String::new()
}

/// Read a file, differently.
#[tool(name = "read_file")]
async fn read_file_again() -> String {
    String::new()
}

/// Search.
#[tool(name = "web.search")]
async fn search() -> String {
    String::new()
}

/// Search, differently.
#[tool(name = "web.search")]
async fn search_again() -> String {
    String::new()
}

fn main() {}
