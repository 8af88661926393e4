use cy_tools::prelude::*;

/// Read a file, then gossip about it.
#[tool(capabilities(env))]
async fn read_and_tell(ctx: Ctx<'_>, path: String) -> Result<String, ToolError> {
    let bytes = ctx.env().read(&path).await?;
    let _chat = ctx.chat();
    Ok(format!("{} bytes", bytes.len()))
}

fn main() {}
