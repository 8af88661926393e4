//! What an inline argument takes as a struct field would: `#[serde(rename, default)]`,
//! the constraints `#[schemars(...)]` writes (checked when called, with the validator's
//! messages), `#[cfg]`, and a leading `_` that is not part of its name.

use cy_tools::definition::Definition;
use cy_tools::prelude::*;

/// How to sort.
#[derive(Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
}

fn default_limit() -> u32 {
    10
}

/// Search the notes.
#[tool]
async fn search_notes(
    /// What to look for.
    #[schemars(length(min = 1, max = 80))]
    query: String,
    /// How many, 1 to 50.
    #[schemars(range(min = 1, max = 50))]
    #[serde(default = "default_limit")]
    limit: u32,
    /// A tag: lowercase letters.
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    #[serde(rename = "tag")]
    tag_name: Option<String>,
    /// The order.
    #[serde(default)]
    _order: Order,
    /// Only in debug builds of this test: never.
    #[cfg(any())]
    verbose: bool,
    /// Always there.
    #[cfg(all())]
    page: Option<u32>,
) -> String {
    format!("{query} {limit} {tag_name:?} {page:?}")
}

fn main() {
    let schema = SEARCH_NOTES.schema().unwrap();
    assert_eq!(schema.properties(), ["limit", "order", "page", "query", "tag"]);
    let value = schema.value();
    assert_eq!(value["properties"]["query"]["maxLength"], 80);
    assert_eq!(value["properties"]["limit"]["maximum"], 50);
    assert_eq!(value["properties"]["limit"]["default"], 10);
    assert_eq!(value["properties"]["tag"]["pattern"], "^[a-z]+$");
    assert_eq!(value["required"], serde_json::json!(["query"]));

    let tool = cy_tools::binding::bind_tool(&SEARCH_NOTES, ToolContext::local()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let call = |args: serde_json::Value| {
        runtime.block_on(tool.execute(ToolCall::new("c", args), &CancellationToken::new()))
    };
    assert_eq!(
        call(serde_json::json!({"query": "rust", "tag": "lang", "order": "oldest"})).text_content(),
        "rust 10 Some(\"lang\") None"
    );
    for (args, says) in [
        (serde_json::json!({"query": ""}), "`query`"),
        (serde_json::json!({"query": "x", "limit": 51}), "`limit`"),
        (serde_json::json!({"query": "x", "tag": "Lang"}), "`tag`"),
        (serde_json::json!({"query": "x", "verbose": true}), "`verbose`"),
    ] {
        let refused = call(args.clone());
        assert!(refused.is_error, "{args}");
        assert!(refused.text_content().contains(says), "{args}: {}", refused.text_content());
    }
}
