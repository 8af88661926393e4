use cy_tools::prelude::*;

/// Report the call id.
#[tool]
async fn call_id(#[arg(rename = "id")] call: CallInfo) -> String {
    call.id.to_string()
}

fn main() {}
