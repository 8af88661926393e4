//! Generated items take the function's visibility, so a `pub(crate)` tool in a module is
//! usable from the parent; hand-written code can name the generated types.

mod tools {
    use cy_tools::prelude::*;

    /// Read a file.
    #[tool(capabilities(env))]
    pub(crate) async fn read(
        ctx: Ctx<'_>,
        /// The file.
        path: String,
    ) -> Result<String, ToolError> {
        Ok(String::from_utf8_lossy(&ctx.env().read(&path).await?).into_owned())
    }
}

use cy_tools::definition::Definition;
use cy_tools::{
    capability::{Capability, CapabilitySet},
    definition::ToolDefinition,
};

static SAME: &ToolDefinition<tools::ReadParams, tools::ReadCaps> = &tools::READ;

fn main() {
    assert!(tools::ReadCaps::CAPABILITIES.contains(Capability::Env));
    assert!(!tools::ReadCaps::CAPABILITIES.contains(Capability::Chat));
    assert_eq!(SAME.name(), "read");
}
