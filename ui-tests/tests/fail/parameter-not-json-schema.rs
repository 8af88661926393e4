use cy_tools::tool;

/// A point without a schema.
#[derive(serde::Deserialize)]
struct Point {
    x: f64,
}

/// Move to a point.
#[tool]
async fn move_to(target: Point) -> String {
    target.x.to_string()
}

fn main() {}
