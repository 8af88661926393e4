use cy_tools::tool;

/// Fetch a URL.
#[tool(capabilities(network))]
async fn fetch(url: String) -> String {
    url
}

fn main() {}
