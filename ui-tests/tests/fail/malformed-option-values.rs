use cy_tools::prelude::*;

/// Every malformed value is reported, and the options after it are still checked.
#[tool(name = 5, timeout = 30, read_only = "yes", capabilities(envv), titel = "x")]
async fn report_everything(
    /// A name.
    #[arg(rename = 7, default = , defualt)]
    who: String,
) -> String {
    who
}

fn main() {}
