use cy_tools::prelude::*;

/// One greeting.
#[prompt]
async fn greet() -> String {
    String::new()
}

/// Another greeting of the same name.
#[prompt(name = "greet")]
async fn greet_again() -> String {
    String::new()
}

/// A resource and a prompt may share a name: they are listed apart.
#[resource(uri = "x://greet", name = "greet")]
async fn greet_resource() -> String {
    String::new()
}

fn main() {}
