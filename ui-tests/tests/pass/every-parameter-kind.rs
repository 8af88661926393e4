//! Context, per-call data, context fields taken directly, and arguments with a default, a
//! rename, an `Option`, a string-literal default and a raw identifier, called end to end.

use std::sync::Arc;

use cy_tools::definition::Definition;
use cy_tools::memory::MemorySandbox;
use cy_tools::prelude::*;
use cy_tools::{ToolCall, services::Sandbox};

/// Describe the call.
#[tool(capabilities(env, session))]
async fn describe(
    ctx: Ctx<'_>,
    env: &dyn Sandbox,
    session: &SessionIdentity,
    call: CallInfo,
    /// A required text.
    text: String,
    /// A number with a default.
    #[arg(default = 7)]
    count: u32,
    /// A renamed argument.
    #[arg(rename = "branch_name", default = "main")]
    branch: String,
    /// An optional argument.
    note: Option<String>,
    /// A keyword as a name.
    r#type: String,
    /// A list that defaults to empty.
    #[arg(default)]
    flags: Vec<String>,
) -> String {
    format!(
        "{} {} {} {} {text} {count} {branch} {note:?} {} {flags:?}",
        ctx.session().session_id,
        session.tenant,
        env.describe(),
        call.id,
        r#type
    )
}

fn main() {
    let schema = DESCRIBE.schema().unwrap();
    assert_eq!(
        schema.properties(),
        ["branch_name", "count", "flags", "note", "text", "type"]
    );
    let value = schema.value();
    assert_eq!(value["properties"]["count"]["default"], 7);
    assert_eq!(value["properties"]["branch_name"]["default"], "main");
    assert_eq!(
        value["properties"]["flags"]["default"],
        serde_json::json!([])
    );
    assert_eq!(
        value["properties"]["text"]["description"],
        "A required text."
    );
    assert_eq!(value["required"], serde_json::json!(["text", "type"]));

    let context = ToolContext::new(SessionIdentity::root("s-1", "acme"))
        .with_env(Arc::new(MemorySandbox::new()));
    let tools = ToolRegistry::linked()
        .unwrap()
        .build(&["describe"], &context);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let result = runtime.block_on(tools.execute(
        "describe",
        ToolCall::new("c-9", serde_json::json!({"text": "hi", "type": "t"})),
        &CancellationToken::new(),
    ));
    assert_eq!(
        result.text_content(),
        "s-1 acme memory:/ c-9 hi 7 main None t []"
    );
}
