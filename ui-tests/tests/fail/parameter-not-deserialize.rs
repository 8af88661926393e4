use cy_tools::tool;

/// A point that only knows its schema.
#[derive(schemars::JsonSchema)]
struct Point {
    x: f64,
}

/// Move to a point.
#[tool]
async fn move_to(target: Point) -> String {
    target.x.to_string()
}

fn main() {}
