//! Resources and prompts: every return kind, typed template variables and prompt arguments,
//! state, call info, completion, `#[args]`, renames; read and got through a catalog.

use cy_tools::Json;
use cy_tools::catalog::{
    Catalog, CatalogRegistry, PromptMessage, PromptReply, ReadOutput, ResourceContents, Role,
};
use cy_tools::prelude::*;

struct Greeting(&'static str);

/// Fixed text.
#[resource(uri = "t://text", mime_type = "text/plain", title = "Text")]
async fn text() -> &'static str {
    "text"
}

/// Bytes.
#[resource(uri = "t://bytes")]
async fn bytes() -> Vec<u8> {
    vec![1, 2, 3]
}

/// JSON of a typed variable.
#[resource(uri = "t://items/{id}")]
async fn item(/** The id. */ id: u64) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "id": id }))
}

/// Whole contents, two parts, reading state and the call.
#[resource(uri = "t://{lang}/parts", complete = languages)]
async fn parts(
    greeting: State<'_, Greeting>,
    call: CallInfo,
    /// The language.
    lang: String,
) -> Result<Vec<ResourceContents>, ToolError> {
    Ok(vec![
        ResourceContents::text(call.id, "text/plain", greeting.0),
        ResourceContents::text(format!("t://{lang}/other"), "text/plain", lang),
    ])
}

fn languages(_argument: &str, _typed: &str) -> Vec<String> {
    vec!["en".into(), "fr".into()]
}

/// Raw output.
#[resource(uri = "t://raw")]
async fn raw() -> ReadOutput {
    ReadOutput::Text("raw".into())
}

/// The arguments of `review`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReviewArgs {
    /// The code.
    code: String,
}

/// Review code.
#[prompt(title = "Review")]
async fn review(#[args] args: ReviewArgs) -> PromptReply {
    PromptReply::new(vec![PromptMessage::user(args.code)]).with_description("a review")
}

/// A renamed, typed argument.
#[prompt(name = "count_to")]
async fn count(
    /// How far.
    #[arg(rename = "upTo")]
    up_to: u8,
) -> Result<Vec<PromptMessage>, String> {
    Ok(vec![PromptMessage::new(
        Role::Assistant,
        Content::text((1..=up_to).map(|n| n.to_string()).collect::<Vec<_>>().join(" ")),
    )])
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let context = std::sync::Arc::new(ToolContext::local().with_state(Greeting("hello")));
    let registry = CatalogRegistry::linked().unwrap();
    let (catalog, left_out) = registry.build(
        &["text", "bytes", "item", "parts", "raw"],
        &["review", "count_to"],
        &context,
    );
    assert!(left_out.is_empty(), "{left_out:?}");
    let catalog: Catalog = catalog;
    let cancel = CancellationToken::new();
    let read = catalog.read("t://items/7", &cancel).await.unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap()[0]["text"], r#"{"id":7}"#);
    let read = catalog.read("t://fr/parts", &cancel).await.unwrap();
    assert_eq!(read[0].uri, "t://fr/parts");
    assert_eq!(read[1].uri, "t://fr/other");
    let read = catalog.read("t://bytes", &cancel).await.unwrap();
    assert_eq!(read[0].mime_type.as_deref(), Some("application/octet-stream"));
    let err = catalog.read("t://items/x", &cancel).await.unwrap_err();
    assert!(err.to_string().contains("`id`"), "{err}");
    let args = serde_json::json!({"upTo": "3"});
    let reply = catalog
        .get_prompt("count_to", args.as_object().unwrap().clone(), &cancel)
        .await
        .unwrap();
    assert_eq!(reply.messages, [PromptMessage::assistant("1 2 3")]);
    let target = cy_tools::catalog::CompletionTarget::Resource("t://{lang}/parts");
    assert_eq!(catalog.complete(target, "lang", "f").unwrap(), ["fr"]);
}
