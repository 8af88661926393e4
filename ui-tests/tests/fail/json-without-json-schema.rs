use cy_tools::prelude::*;

/// Serializable, but without a schema.
#[derive(serde::Serialize)]
pub struct Stats {
    words: u32,
}

/// Count the words, declaring the output schema.
#[tool]
async fn stats(/** The text. */ text: String) -> Result<Json<Stats>, ToolError> {
    Ok(Json(Stats {
        words: text.split_whitespace().count() as u32,
    }))
}

fn main() {}
