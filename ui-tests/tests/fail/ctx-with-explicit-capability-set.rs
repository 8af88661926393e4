use cy_tools::prelude::*;
use cy_tools::capability::capability_set;

capability_set!(Mine: env);

/// Read a file.
#[tool(capabilities(env))]
async fn read_file(ctx: Ctx<'_, Mine>, path: String) -> String {
    let _ = ctx.env();
    path
}

fn main() {}
