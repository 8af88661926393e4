use cy_tools::tool;

/// How to run.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub enum Mode {
    /// Quickly.
    Fast,
}

/// Run.
#[tool]
async fn run(
    /// How.
    #[arg(default)]
    mode: Mode,
) -> String {
    let _ = mode;
    String::new()
}

fn main() {}
