//! How `terminal` and `execute_code` answer a command or program that ran to its end.
//!
//! The rule, the same for both: a command that ran and exited (with any exit code) is a normal
//! result. Its exit code is what the model needs (`grep` that found nothing, a test suite that
//! failed), not a failure of the tool, and agent frameworks treat a tool error as something to
//! retry or give up on. The result is a text block (the exit code and both streams, labelled)
//! and the same as structured content that matches [`output_schema`]. An error result
//! (`is_error`) is for a tool that could not do its job: arguments refused, the command could
//! not start, it timed out, was cancelled, or was killed by a signal.

use cy_tools::ToolResult;
use cy_tools::call::Content;
use cy_tools::services::ShellResult;
use serde_json::{Value, json};

/// The output schema of both tools: what their structured content holds.
pub(crate) fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "exit_code": {
                "type": "integer",
                "description": "How the command ended: 0 usually means success; anything else is the program's own answer (`grep` found nothing, a test failed)."
            },
            "stdout": {
                "type": "string",
                "description": "What it wrote to standard output, cut with a notice when very long."
            },
            "stderr": {
                "type": "string",
                "description": "What it wrote to standard error, cut with a notice when very long."
            },
            "truncated": {
                "type": "boolean",
                "description": "Whether stdout or stderr was cut."
            }
        },
        "required": ["exit_code", "stdout", "stderr", "truncated"],
        "additionalProperties": false
    })
}

/// A normal result for a run that exited with `exit_code`: `text` for the model, then the
/// structured copy.
pub(crate) fn exited(text: String, exit_code: i32, result: &ShellResult) -> ToolResult {
    ToolResult::text(text).with_content(Content::json(json!({
        "exit_code": exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "truncated": result.truncated,
    })))
}

/// Both streams, labelled: `stdout: (empty)`, or `stdout:` and the text on the next lines.
pub(crate) fn streams(result: &ShellResult) -> String {
    format!(
        "stdout:{}\nstderr:{}",
        section(&result.stdout),
        section(&result.stderr)
    )
}

/// One stream after its label: ` (empty)`, or a newline and the text without its final newline.
pub(crate) fn section(text: &str) -> String {
    if text.is_empty() {
        " (empty)".to_string()
    } else {
        format!("\n{}", trim_newline(text))
    }
}

/// `text` without one final newline.
pub(crate) fn trim_newline(text: &str) -> &str {
    text.strip_suffix('\n').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_exited_is_text_and_matching_structured_content() {
        let run = ShellResult {
            stdout: "a\n".into(),
            stderr: String::new(),
            exit_code: Some(1),
            timed_out: false,
            truncated: false,
        };
        let result = exited(format!("exit code: 1\n{}", streams(&run)), 1, &run);
        assert!(!result.is_error);
        assert_eq!(
            result.content,
            vec![
                Content::text("exit code: 1\nstdout:\na\nstderr: (empty)"),
                Content::json(
                    json!({"exit_code": 1, "stdout": "a\n", "stderr": "", "truncated": false})
                ),
            ]
        );
        // The structured copy has exactly the schema's required fields.
        let Content::Json { value } = &result.content[1] else {
            unreachable!()
        };
        let mut fields: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        fields.sort_unstable();
        let schema = output_schema();
        let mut required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        required.sort_unstable();
        assert_eq!(fields, required);
    }
}
