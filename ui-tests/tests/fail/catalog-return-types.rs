use cy_tools::prelude::*;

/// A resource answering a number.
#[resource(uri = "x://count")]
async fn count() -> u32 {
    3
}

/// A prompt answering a number.
#[prompt]
async fn number() -> u32 {
    3
}

fn main() {}
