use cy_tools::prelude::*;

/// A prompt given a tool's option.
#[prompt(read_only)]
async fn hint() -> String {
    String::new()
}

/// A resource given a timeout, a tool's option.
#[resource(uri = "x://a", timeout = "1s", mime = "text/plain")]
async fn timed() -> String {
    String::new()
}

/// A resource written as a plain `fn`.
#[resource(uri = "x://b")]
fn blocking() -> String {
    String::new()
}

fn main() {}
