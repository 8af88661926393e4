//! `execute_code`: run Python the model wrote in the session's sandbox, locally or on a remote
//! sandbox host, whichever [`CodeExecutor`](cy_tools::services::CodeExecutor) the session was built with.
//!
//! Code that ran is a normal result whatever its exit code, with the structured copy of its exit
//! code and streams that `terminal` gives too; an error result is for a run that was refused,
//! timed out, was cancelled or was killed by a signal. Its stderr names the workspace's files
//! relative to the workspace root, and a fresh script (written outside the workspace) `<code>`.
//!
//! Defined with a hand-written schema ([`RawToolDefinition`]), as `terminal` is; its arguments
//! are still validated against that schema before the body runs. Every optional field also
//! takes `null`.

use std::time::Duration;

use cy_tools::services::ProgressCounter;
use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolResult,
    capability::capability_set,
    definition::{RawToolDefinition, ToolAnnotations},
    services::{CodeOptions, ShellResult},
};
use serde_json::{Value, json};

use super::outcome::{self, section, trim_newline};
use super::progress::{Measure, output_lines, reporting};

/// The timeout of a call that sets no `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

capability_set!(
    /// What `execute_code` may touch: the session's code executor, nothing else (the executor
    /// writes the file itself).
    pub ExecuteCodeCaps: execute_code
);

const DESCRIPTION: &str = "Run Python code in the workspace and return what it printed. The code is \
run with `python3` in a clean environment, from the workspace root, so files it writes stay for later \
calls and the file tools, and it can import the workspace's modules. It is written to a fresh file \
outside the workspace, removed after the run (name a `filename` to keep it in the workspace instead). \
Calls may run at once. Code that ran is a normal result whatever its exit code: exit code 0 shows its \
stdout (and stderr, if any); any other shows the exit code, stdout and stderr (with the traceback, its \
paths relative to the workspace). An error result means the code did not run to its end: it was \
refused, timed out or was killed. The run and every process it starts are killed after `timeout_ms`. \
Very long output is cut, with a notice: write large results to a file and read it in parts.";

fn schema() -> Value {
    // Every optional field also takes `null`, so a strict converter (one that makes every
    // field required, as OpenAI's strict function tools need) still leaves the model the
    // choice of leaving it out.
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The Python source to run, a whole program: print what you want to see."
            },
            "filename": {
                "type": ["string", "null"],
                "description": "File to write the code to and keep, relative to the workspace root; left out or null, a fresh file outside the workspace that is removed after the run. Calls at once that name the same file take turns."
            },
            "timeout_ms": {
                "type": ["integer", "null"],
                "minimum": 1,
                "description": "Milliseconds before the run is killed, at most the workspace's maximum (usually 3600000); 60000 when left out or null."
            }
        },
        "required": ["code"]
    })
}

/// The `execute_code` definition.
pub static EXECUTE_CODE: RawToolDefinition<ExecuteCodeCaps> =
    RawToolDefinition::new("execute_code", DESCRIPTION, schema, execute_code)
        .with_annotations(
            ToolAnnotations::DEFAULT
                .title("Run Python code")
                .destructive(true)
                .open_world(true),
        )
        .with_output_schema(outcome::output_schema);

cy_tools::__private::inventory::submit!(cy_tools::binding::ToolRegistration::new(
    &EXECUTE_CODE,
    module_path!()
));

fn execute_code<'a>(
    args: Value,
    ctx: Ctx<'a, ExecuteCodeCaps>,
    call: CallInfo<'a>,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        // The schema was checked before this body runs: `code` is a string, `filename` a
        // string or null if present, `timeout_ms` a positive integer or null if present.
        let code = args["code"].as_str().unwrap_or_default();
        let filename = args["filename"].as_str().map(str::to_string);
        let timeout_ms = args["timeout_ms"].as_u64().unwrap_or(DEFAULT_TIMEOUT_MS);
        if code.trim().is_empty() {
            return ToolResult::error(
                "`code` is empty; pass the Python program to run, such as `print(1 + 1)`",
            );
        }
        let lines = ProgressCounter::default();
        let options = CodeOptions {
            filename,
            timeout: Some(Duration::from_millis(timeout_ms)),
            cancel: call.cancel.clone(),
            call_id: Some(call.id.to_string()),
            output_lines: call.wants_progress().then(|| lines.clone()),
            approver: call.approver().cloned(),
            asker: call.asker().cloned(),
            ..CodeOptions::default()
        };
        let run = ctx.execute_code().execute(code, options);
        match reporting(&call, Measure::Count(&lines, output_lines), run).await {
            Ok(result) => render(&result, timeout_ms),
            Err(err) => ToolResult::error(err.to_string()),
        }
    })
}

/// What the model sees. Exit code zero: the stdout (and stderr, labelled, if anything was
/// written there). Any other exit code: the code ran, so a normal result too, with the exit
/// code first, then both streams, labelled. A run that timed out or was killed is an error.
pub(crate) fn render(result: &ShellResult, timeout_ms: u64) -> ToolResult {
    if result.timed_out {
        return ToolResult::error(format!(
            "the code timed out after {timeout_ms} ms and was killed, with every process it started; its output until then is below. Make it faster, or pass a larger `timeout_ms`\n{}",
            outcome::streams(result)
        ));
    }
    match result.exit_code {
        Some(0) => {
            let mut text = if result.stdout.is_empty() {
                "(the code printed nothing)".to_string()
            } else {
                trim_newline(&result.stdout).to_string()
            };
            if !result.stderr.is_empty() {
                text.push_str("\nstderr:");
                text.push_str(&section(&result.stderr));
            }
            outcome::exited(text, 0, result)
        }
        Some(code) => outcome::exited(
            format!(
                "the code exited with exit code {code}\n{}",
                outcome::streams(result)
            ),
            code,
            result,
        ),
        None => ToolResult::error(format!(
            "the code was killed by a signal before it finished\n{}",
            outcome::streams(result)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cy_tools::call::Content;

    /// The text block the model reads (the structured copy follows it).
    fn text(result: &ToolResult) -> String {
        match &result.content[0] {
            Content::Text { text } => text.clone(),
            other => panic!("not text: {other:?}"),
        }
    }

    fn shell(stdout: &str, stderr: &str, exit_code: Option<i32>, timed_out: bool) -> ShellResult {
        ShellResult {
            stdout: stdout.into(),
            stderr: stderr.into(),
            exit_code,
            timed_out,
            truncated: false,
        }
    }

    #[test]
    fn every_outcome_reads_as_intended() {
        let ok = render(&shell("1\n", "", Some(0), false), 5);
        assert!(!ok.is_error);
        assert_eq!(text(&ok), "1");
        let quiet = render(&shell("", "", Some(0), false), 5);
        assert_eq!(text(&quiet), "(the code printed nothing)");
        let warned = render(&shell("1\n", "careful\n", Some(0), false), 5);
        assert_eq!(text(&warned), "1\nstderr:\ncareful");
        let failed = render(&shell("", "boom\n", Some(3), false), 5);
        assert!(
            !failed.is_error,
            "the code ran: its exit code is the answer"
        );
        assert_eq!(
            text(&failed),
            "the code exited with exit code 3\nstdout: (empty)\nstderr:\nboom"
        );
        assert_eq!(
            failed.content[1],
            Content::json(
                serde_json::json!({"exit_code": 3, "stdout": "", "stderr": "boom\n", "truncated": false})
            )
        );
        let killed = render(&shell("a", "", None, false), 5);
        assert!(killed.is_error);
        assert_eq!(
            killed.text_content(),
            "the code was killed by a signal before it finished\nstdout:\na\nstderr: (empty)"
        );
        let slow = render(&shell("part\n", "", None, true), 250);
        assert!(slow.is_error);
        assert!(
            slow.text_content()
                .starts_with("the code timed out after 250 ms and was killed")
        );
    }
}
