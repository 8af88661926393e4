use cy_tools::prelude::*;

/// Look something up.
#[tool]
async fn look_up(db: State<'_>, key: String) -> String {
    let _ = db;
    key
}

fn main() {}
