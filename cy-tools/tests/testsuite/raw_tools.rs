//! Raw definitions: hand-written schemas, still validated before the body runs.

use crate::support::*;
use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolResult,
    binding::{BindError, bind_tool},
    capability::capability_set,
    definition::RawToolDefinition,
};
use serde_json::{Value, json};

fn code_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ExecuteCodeParams",
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 1},
            "filename": {"type": "string", "default": "main.py"},
            "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000}
        },
        "required": ["code"]
    })
}

capability_set!(RawCaps: env);

fn echo<'a>(args: Value, ctx: Ctx<'a, RawCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        ToolResult::text(format!(
            "{} in {}",
            args["code"].as_str().unwrap_or("?"),
            ctx.env().describe()
        ))
    })
}

static RAW: RawToolDefinition<RawCaps> =
    RawToolDefinition::new("run_code", "Runs code.", code_schema, echo);

fn not_an_object() -> Value {
    json!({"type": "string"})
}

fn noop<'a>(_: Value, _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async { ToolResult::text("ran") })
}

pub(crate) static BROKEN: RawToolDefinition =
    RawToolDefinition::new("broken", "Broken schema.", not_an_object, noop);

fn bad_keyword() -> Value {
    json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}})
}

static INVALID: RawToolDefinition =
    RawToolDefinition::new("invalid", "Invalid schema.", bad_keyword, noop);

#[test]
fn the_raw_schema_is_canonicalized() {
    let tool = bind_tool(&RAW, full_session("s").0).unwrap();
    let schema = tool.parameters();
    assert!(schema.get("$schema").is_none());
    assert!(schema.get("title").is_none());
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["required"], json!(["code"]));
}

#[tokio::test]
async fn valid_raw_arguments_reach_the_body() {
    let tool = bind_tool(&RAW, full_session("s").0).unwrap();
    let result = tool
        .execute(call(json!({"code": "print(1)"})), &token())
        .await;
    assert_eq!(result.text_content(), "print(1) in memory:/");
}

#[tokio::test]
async fn raw_arguments_are_validated_against_the_schema() {
    let tool = bind_tool(&RAW, full_session("s").0).unwrap();
    let result = tool
        .execute(call(json!({"code": 3, "timeout_ms": 0})), &token())
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.text_content(),
        "invalid arguments for `run_code`: `code`: 3 is not of type \"string\"; `timeout_ms`: 0 is less than the minimum of 1; valid fields are `code` (string, required), `filename` (string), `timeout_ms` (integer)"
    );
    let missing = tool.execute(call(json!({})), &token()).await;
    assert_eq!(
        missing.text_content(),
        "invalid arguments for `run_code`: \"code\" is a required property; valid fields are `code` (string, required), `filename` (string), `timeout_ms` (integer)"
    );
    let unknown = tool
        .execute(call(json!({"code": "x", "lang": "py"})), &token())
        .await;
    assert_eq!(
        unknown.text_content(),
        "invalid arguments for `run_code`: unknown field `lang`; valid fields are `code` (string, required), `filename` (string), `timeout_ms` (integer)"
    );
}

#[test]
fn a_raw_schema_that_is_not_an_object_cannot_be_bound() {
    let err = bind_tool(&BROKEN, session("s")).unwrap_err();
    assert_eq!(
        err,
        BindError::InvalidSchema {
            tool: "broken".into(),
            reason: "the parameter schema's root must have `\"type\": \"object\"`, got `\"string\"`; wrap the parameters in a struct".into(),
        }
    );
    let err = bind_tool(&INVALID, session("s")).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "tool `invalid` has an invalid parameter schema: it is not valid JSON Schema 2020-12: "
        ),
        "{err}"
    );
}
