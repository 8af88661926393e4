use cy_tools::prelude::*;

/// Neither `Serialize` nor a conversion of its own.
pub struct Opaque;

/// Return an opaque value.
#[tool]
async fn opaque() -> Opaque {
    Opaque
}

/// Return an opaque value, or an error.
#[tool]
fn maybe_opaque() -> Result<Opaque, ToolError> {
    Ok(Opaque)
}

fn main() {}
