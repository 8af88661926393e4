use cy_tools::prelude::*;

/// A row, whose argument is not a variable of its URI.
#[resource(uri = "db://rows/{id}")]
async fn row(/** The row. */ key: String) -> String {
    key
}

/// A resource without a URI.
#[resource]
async fn nowhere() -> String {
    String::new()
}

/// A URI template with an operator.
#[resource(uri = "file:///{+path}")]
async fn reserved(/** The path. */ path: String) -> String {
    path
}

/// Two variables side by side.
#[resource(uri = "x://{a}{b}")]
async fn glued(/** A. */ a: String, /** B. */ b: String) -> String {
    a + &b
}

fn main() {}
