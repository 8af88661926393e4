use cy_tools::tool;

#[tool(read_only)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
