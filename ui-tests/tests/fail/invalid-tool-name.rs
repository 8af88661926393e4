use cy_tools::tool;

/// Read a file.
#[tool(name = "files/read")]
async fn read_file(path: String) -> String {
    path
}

/// Say something very long.
#[tool(name = "ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt")]
async fn long_name() -> String {
    String::new()
}

fn main() {}
