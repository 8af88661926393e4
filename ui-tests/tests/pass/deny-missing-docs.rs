//! Generated public items are documented.

#![deny(missing_docs)]

/// Public tools.
pub mod tools {
    use cy_tools::prelude::*;

    /// A public tool with a capability and a parameter.
    #[tool(capabilities(session))]
    pub async fn whoami(
        ctx: Ctx<'_>,
        /// A greeting.
        #[arg(default = "hi")]
        greeting: String,
    ) -> String {
        format!("{greeting} {}", ctx.session().session_id)
    }
}

fn main() {
    let _ = &tools::WHOAMI;
}
