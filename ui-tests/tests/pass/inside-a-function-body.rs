//! Tools defined inside a function body, where their types are local too.

use cy_tools::definition::Definition;
use cy_tools::{ToolRegistry, tool};

fn main() {
    /// A local argument type.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Local {
        /// A value.
        value: u8,
    }

    /// Use a local type.
    #[tool]
    async fn local_tool(
        /// The local value, sent nested under `local`.
        #[arg(nested)]
        local: Local,
    ) -> String {
        local.value.to_string()
    }

    assert_eq!(LOCAL_TOOL.schema().unwrap().properties(), ["local"]);
    assert_eq!(ToolRegistry::linked().unwrap().names(), ["local_tool"]);
}
