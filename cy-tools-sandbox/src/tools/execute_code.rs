//! `execute_code`: run Python the model wrote in the session's sandbox, locally or on a remote
//! sandbox host, whichever [`CodeExecutor`](cy_tools::services::CodeExecutor) the session was built with.
//!
//! Defined with a hand-written schema ([`RawToolDefinition`]) as the one raw tool; its arguments are
//! still validated against that schema before the body runs.

use std::time::Duration;

use cy_tools::services::ProgressCounter;
use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolResult,
    capability::capability_set,
    definition::{RawToolDefinition, ToolAnnotations},
    services::{CodeOptions, ShellResult},
};
use serde_json::{Value, json};

use super::progress::{Measure, output_lines, reporting};

/// The timeout of a call that sets no `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

capability_set!(
    /// What `execute_code` may touch: the session's code executor, nothing else (the executor
    /// writes the file itself).
    pub ExecuteCodeCaps: execute_code
);

const DESCRIPTION: &str = "Run Python code in the workspace and return what it printed. The code is \
written to a fresh file in the workspace root (removed after the run; name a `filename` to keep it) \
and run with `python3` in a clean environment, from the workspace root, so files it writes stay for \
later calls and the file tools, and it can import the workspace's modules. Calls may run at once. \
On success the result is its stdout; on failure it shows stdout, stderr (with the traceback) and the \
exit code. The run and every process it starts are killed after `timeout_ms`. Very long output is \
cut, with a notice: write large results to a file and read it in parts.";

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The Python source to run, a whole program: print what you want to see."
            },
            "filename": {
                "type": "string",
                "description": "File to write the code to and keep, relative to the workspace root; left out, a fresh file that is removed after the run. Calls at once that name the same file take turns."
            },
            "timeout_ms": {
                "type": "integer",
                "minimum": 1,
                "description": "Milliseconds before the run is killed, at most the workspace's maximum (usually 3600000); 60000 when left out."
            }
        },
        "required": ["code"]
    })
}

/// The `execute_code` definition.
pub static EXECUTE_CODE: RawToolDefinition<ExecuteCodeCaps> =
    RawToolDefinition::new("execute_code", DESCRIPTION, schema, execute_code).with_annotations(
        ToolAnnotations::DEFAULT
            .title("Run Python code")
            .destructive(true)
            .open_world(true),
    );

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
        // string if present, `timeout_ms` a positive integer if present.
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
/// written there). Anything else is an error result with the outcome first, then both
/// streams, labelled.
pub(crate) fn render(result: &ShellResult, timeout_ms: u64) -> ToolResult {
    let streams = || {
        format!(
            "stdout:{}\nstderr:{}",
            section(&result.stdout),
            section(&result.stderr)
        )
    };
    if result.timed_out {
        return ToolResult::error(format!(
            "the code timed out after {timeout_ms} ms and was killed, with every process it started; its output until then is below. Make it faster, or pass a larger `timeout_ms`\n{}",
            streams()
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
            ToolResult::text(text)
        }
        Some(code) => ToolResult::error(format!(
            "the code failed with exit code {code}\n{}",
            streams()
        )),
        None => ToolResult::error(format!(
            "the code was killed by a signal before it finished\n{}",
            streams()
        )),
    }
}

/// One stream after its label: ` (empty)`, or a newline and the text without its final newline.
fn section(text: &str) -> String {
    if text.is_empty() {
        " (empty)".to_string()
    } else {
        format!("\n{}", trim_newline(text))
    }
}

fn trim_newline(text: &str) -> &str {
    text.strip_suffix('\n').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(ok.text_content(), "1");
        let quiet = render(&shell("", "", Some(0), false), 5);
        assert_eq!(quiet.text_content(), "(the code printed nothing)");
        let warned = render(&shell("1\n", "careful\n", Some(0), false), 5);
        assert_eq!(warned.text_content(), "1\nstderr:\ncareful");
        let failed = render(&shell("", "boom\n", Some(3), false), 5);
        assert!(failed.is_error);
        assert_eq!(
            failed.text_content(),
            "the code failed with exit code 3\nstdout: (empty)\nstderr:\nboom"
        );
        let killed = render(&shell("a", "", None, false), 5);
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
