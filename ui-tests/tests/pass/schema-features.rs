//! Enums, nested structs, `Vec` and maps as arguments, through schemars.

use std::collections::HashMap;

use cy_tools::definition::Definition;
use cy_tools::tool;

/// A colour.
#[derive(serde::Deserialize, schemars::JsonSchema)]
enum Colour {
    /// Red.
    Red,
    /// Green.
    Green,
}

/// A point.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    /// Across.
    x: f64,
    /// Down.
    y: f64,
}

/// Draw points.
#[tool]
async fn draw(
    /// The points.
    points: Vec<Point>,
    /// The colour.
    colour: Colour,
    /// Labels by point index.
    labels: HashMap<String, String>,
) -> String {
    let _ = (colour, labels);
    points.iter().map(|p| p.x + p.y).sum::<f64>().to_string()
}

fn main() {
    let schema = DRAW.schema().unwrap().value();
    assert_eq!(schema["properties"]["points"]["type"], "array");
    assert_eq!(
        schema["properties"]["points"]["items"]["$ref"],
        "#/$defs/Point"
    );
    assert_eq!(schema["properties"]["colour"]["$ref"], "#/$defs/Colour");
    assert_eq!(schema["properties"]["labels"]["type"], "object");
    assert_eq!(
        schema["$defs"]["Point"]["required"],
        serde_json::json!(["x", "y"])
    );
}
