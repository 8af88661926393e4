use cy_tools::tool;

/// Run code.
#[tool(capabilities(execute_cod))]
async fn run(code: String) -> String {
    code
}

fn main() {}
