//! `terminal`: run one shell command in the workspace and show how it ended.
//!
//! A command that ran is a normal result whatever its exit code: a text block (the exit code,
//! then stdout and stderr, labelled) and the same as structured content (`exit_code`, `stdout`,
//! `stderr`, `truncated`), which matches the tool's output schema. An error result is for a
//! command that did not run to its end: refused, not started, timed out, cancelled or killed by
//! a signal.
//!
//! Defined with a hand-written schema ([`RawToolDefinition`]), as `execute_code` is, so it can
//! declare that output schema. Its arguments are still validated against the schema before the
//! body runs.

use std::time::Duration;

use cy_tools::services::{ExecOptions, ProgressCounter, ShellResult};
use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolResult,
    capability::capability_set,
    definition::{RawToolDefinition, ToolAnnotations},
};
use serde_json::{Value, json};

use super::outcome;
use super::progress::{Measure, output_lines, reporting};

capability_set!(
    /// What `terminal` may touch: the session's sandbox, nothing else.
    pub TerminalCaps: env
);

const DESCRIPTION: &str =
    "Run a shell command with `/bin/sh -c` in the workspace and return its exit code, stdout and
stderr. It starts in the workspace root (or `cwd`) with a clean environment. A command that ran
is a normal result whatever its exit code (a `grep` that found nothing exits 1): read the exit
code and the output. An error result means the command did not run to its end: it was refused,
could not start, timed out or was killed. It and every process it starts are killed at the
timeout, and whatever it leaves running in the background is killed when it exits: start
servers and other long-running work with the `process` tool instead. Very long output is cut,
with a notice.";

fn schema() -> Value {
    // Every optional field also takes `null`, so a strict converter (one that makes every
    // field required) still leaves the model the choice of leaving it out.
    json!({
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "description": "The shell command, such as `ls -la` or `cargo test 2>&1 | tail -n 30`."
            },
            "timeout": {
                "type": ["integer", "null"],
                "format": "uint64",
                "minimum": 0,
                "description": "Seconds before the command is killed; the workspace's default (usually 120) if left out."
            },
            "cwd": {
                "type": ["string", "null"],
                "description": "Folder to run in, relative to the workspace root; the root when left out."
            }
        },
        "required": ["command"]
    })
}

/// The `terminal` definition.
pub static TERMINAL: RawToolDefinition<TerminalCaps> =
    RawToolDefinition::new("terminal", DESCRIPTION, schema, terminal)
        .with_annotations(
            ToolAnnotations::DEFAULT
                .title("Run a shell command")
                .destructive(true)
                .open_world(true),
        )
        .with_output_schema(outcome::output_schema);

cy_tools::__private::inventory::submit!(cy_tools::binding::ToolRegistration::new(
    &TERMINAL,
    module_path!()
));

fn terminal<'a>(
    args: Value,
    ctx: Ctx<'a, TerminalCaps>,
    call: CallInfo<'a>,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        // The schema was checked before this body runs: `command` is a string, `timeout` a
        // non-negative integer or null, `cwd` a string or null.
        let command = args["command"].as_str().unwrap_or_default();
        let timeout = args["timeout"].as_u64();
        let cwd = args["cwd"].as_str().map(str::to_string);
        if command.trim().is_empty() {
            return ToolResult::error(
                "`command` is empty; pass the shell command to run, such as `ls -la`",
            );
        }
        if timeout == Some(0) {
            return ToolResult::error(
                "`timeout` must be at least 1 second; leave it out for the workspace's default",
            );
        }
        let lines = ProgressCounter::default();
        let options = ExecOptions {
            cwd,
            timeout: timeout.map(Duration::from_secs),
            cancel: Some(call.cancel.clone()),
            output_lines: call.wants_progress().then(|| lines.clone()),
            ..ExecOptions::default()
        };
        let run = ctx.env().exec(command, options);
        match reporting(&call, Measure::Count(&lines, output_lines), run).await {
            Ok(result) => render(&result, timeout),
            Err(err) => ToolResult::error(err.to_string()),
        }
    })
}

/// The result the model sees: how the command ended, then its labelled output. A command that
/// exited is a normal result whatever its code; one that timed out or was killed is an error.
fn render(result: &ShellResult, timeout: Option<u64>) -> ToolResult {
    let streams = outcome::streams(result);
    if result.timed_out {
        let after = match timeout {
            Some(secs) => format!("after {secs}s"),
            None => "at the workspace's default timeout".to_string(),
        };
        return ToolResult::error(format!(
            "the command timed out {after} and was killed, with every process it started; its output until then is below. Give it a longer `timeout`, or start long work in the background with the `process` tool\n{streams}"
        ));
    }
    match result.exit_code {
        Some(code) => outcome::exited(format!("exit code: {code}\n{streams}"), code, result),
        None => ToolResult::error(format!("the command was killed by a signal\n{streams}")),
    }
}
