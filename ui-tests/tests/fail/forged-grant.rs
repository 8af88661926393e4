//! A grant cannot be written by hand: the declared set is a `Caps` type of `cy_tools`, so an
//! impl of a grant trait for it breaks the orphan rule, and under `cargo check` already.
use cy_tools::prelude::*;

/// Read a file, then gossip about it.
#[tool(capabilities(env))]
async fn read_and_tell(ctx: Ctx<'_>, path: String) -> Result<String, ToolError> {
    let bytes = ctx.env().read(&path).await?;
    let _chat = ctx.chat();
    Ok(format!("{} bytes", bytes.len()))
}

impl cy_tools::capability::grants::Chat for ReadAndTellCaps {}

fn main() {}
