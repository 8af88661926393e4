use cy_tools::tool;

/// An error without a message.
#[derive(Debug)]
pub struct Silent;

/// Count, or fail silently.
#[tool]
async fn count() -> Result<u32, Silent> {
    Err(Silent)
}

fn main() {}
