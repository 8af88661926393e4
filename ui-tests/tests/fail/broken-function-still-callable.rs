use cy_tools::tool;

// The attribute's error is reported, and the function is still emitted: this call
// compiles, so the only error is the missing description.
#[tool]
async fn shout(text: String) -> String {
    text.to_uppercase()
}

async fn caller() -> String {
    shout("hi".to_string()).await
}

fn main() {
    let _ = caller;
}
