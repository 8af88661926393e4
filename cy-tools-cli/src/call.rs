//! `cy-tools call`: run one tool in a session over a folder and print its result.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use cy_tools::approval::ApprovalPolicy;
use cy_tools::{CancellationToken, ToolCall, ToolResult, call::Content};
use serde_json::{Map, Value};

use super::error::CliError;
use super::runtime::{CommandRuntime, Outcome};
use super::session::{self, SessionArgs, registry, unknown_tool};
use super::terminal::Terminal;

/// How long a cancelled call has to answer before it is abandoned: stopping must take under
/// 2 s in all.
const ANSWER_WAIT: Duration = Duration::from_secs(1);

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The tool
    tool: String,
    /// The arguments, one JSON object, for example '{"path": "README.md"}' [default: {}]
    #[arg(value_name = "JSON")]
    arguments: Option<String>,
    #[command(flatten)]
    session: SessionArgs,
    /// Print the whole result as JSON (content blocks, is_error, details) instead of its text
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: Args) -> Result<ExitCode, CliError> {
    let registry = registry()?;
    let definition = registry.definition(&args.tool);
    // `{server}__{tool}` may be a tool of one of the spec's MCP servers, known once they are
    // started: the session says whether it is.
    if definition.is_none() && !args.tool.contains("__") {
        return Err(unknown_tool(&args.tool, &registry));
    }
    let arguments = match args.arguments.as_deref() {
        None => Value::Object(Map::new()),
        Some(text) => serde_json::from_str::<Value>(text).map_err(|err| {
            let example = definition
                .and_then(|definition| definition.schema().ok())
                .map(|schema| example_arguments(schema.value()))
                .unwrap_or_else(|| Value::Object(Map::new()));
            CliError::new(format!(
                "the arguments are not valid JSON: {err}; pass one JSON object in single quotes, for example: cy-tools call {} '{example}'",
                args.tool
            ))
        })?,
    };
    let runtime = CommandRuntime::new()?;
    let opened = session::open(
        &args.session,
        Some(std::slice::from_ref(&args.tool)),
        true,
        &runtime,
        ApprovalPolicy::None,
    )?;
    let terminal = Terminal::detect(&args.tool);
    let hooks = terminal.hooks();
    let tool = opened
        .session
        .tools()
        .get(&args.tool)
        .ok_or_else(|| unknown_tool(&args.tool, &registry))?
        .clone();
    let cancel = CancellationToken::new();
    let call = {
        let (cancel, session) = (cancel.clone(), opened.session.clone());
        // Recorded in the session's log (a stored one's) under an id no other call of it has;
        // without a log, the one call this process makes.
        let id = match session.log() {
            Some(_) => format!("cli-{}-{}", std::process::id(), now_ms()),
            None => "cli-1".to_string(),
        };
        async move {
            session
                .execute_tool(
                    &tool,
                    ToolCall::new(id, arguments).with_hooks(hooks),
                    &cancel,
                )
                .await
        }
    };
    let result = match runtime.run(call)? {
        Outcome::Done(result) => result,
        Outcome::Interrupted(call) => {
            // The tool answers at once with a cancellation result, and its processes die; one
            // whose body blocks its thread cannot answer, and is left behind.
            cancel.cancel();
            runtime
                .wait(call, ANSWER_WAIT)?
                .unwrap_or_else(|| abandoned(&args.tool))
        }
    };
    terminal.finish();
    // Stopped before the result is printed, so the commands the call started are gone by then.
    drop(opened);
    drop(runtime);
    print_result(&result, args.json)?;
    Ok(if result.is_error {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// The result of a call that did not stop when cancelled (its tool blocks its thread).
fn abandoned(tool: &str) -> ToolResult {
    ToolResult::error(format!(
        "the call to `{tool}` was cancelled but did not stop (its tool is blocked); it was abandoned and the commands it started were killed; call it again if the result is still needed"
    ))
}

/// A successful result goes to stdout, an error result to stderr; `--json` prints either as
/// one JSON document on stdout.
fn print_result(result: &ToolResult, json: bool) -> Result<(), CliError> {
    let text = if json {
        serde_json::to_string_pretty(result)
            .map_err(|err| CliError::new(format!("cannot print the result: {err}")))?
    } else {
        render(result)
    };
    let written = if result.is_error && !json {
        writeln!(std::io::stderr(), "{text}")
    } else {
        writeln!(std::io::stdout(), "{text}")
    };
    // A closed pipe (`cy-tools call ... | head`) is not worth an error of its own.
    match written {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::new(format!("cannot write the result: {err}")))
        }
        _ => Ok(()),
    }
}

/// Text as is, JSON pretty-printed, images as a placeholder naming their type and size, the
/// other kinds as the line naming them ([`Content::write_text`]). A JSON block after text is the
/// structured copy of that text (`terminal` and `execute_code` send their exit code and streams
/// so): a person reads the text, and `--json` shows both.
fn render(result: &ToolResult) -> String {
    let copy = matches!(
        result.content.as_slice(),
        [.., Content::Text { .. }, Content::Json { .. }]
    );
    let shown = if copy {
        &result.content[..result.content.len() - 1]
    } else {
        &result.content[..]
    };
    let blocks: Vec<String> = shown
        .iter()
        .map(|block| match block {
            Content::Text { text } => text.trim_end_matches('\n').to_string(),
            Content::Json { value } => {
                serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
            }
            Content::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes of base64]", data.len())
            }
            other => {
                let mut text = String::new();
                other.write_text(&mut text);
                text
            }
        })
        .collect();
    blocks.join("\n")
}

/// Arguments that show the shape a tool expects: its required fields with a placeholder of
/// each one's type (the first value of an enum).
fn example_arguments(schema: &Value) -> Value {
    let mut example = Map::new();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let property = &schema["properties"][name];
        example.insert(name.to_string(), placeholder(property));
    }
    Value::Object(example)
}

fn placeholder(property: &Value) -> Value {
    if let Some(first) = property["enum"]
        .as_array()
        .and_then(|values| values.first())
    {
        return first.clone();
    }
    let kind = match &property["type"] {
        Value::String(kind) => kind.as_str(),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("string"),
        _ => "string",
    };
    match kind {
        "integer" => Value::from(1),
        "number" => Value::from(1.5),
        "boolean" => Value::Bool(true),
        "array" => Value::Array(Vec::new()),
        "object" => Value::Object(Map::new()),
        _ => Value::from("..."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn example_lists_required_fields_with_typed_placeholders() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": ["integer", "null"]},
                "mode": {"enum": ["literal", "regex"]},
                "all": {"type": "boolean"},
            },
            "required": ["path", "mode", "all"],
        });
        assert_eq!(
            example_arguments(&schema),
            json!({"path": "...", "mode": "literal", "all": true})
        );
    }
}
