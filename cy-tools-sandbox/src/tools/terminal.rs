//! `terminal`: run one shell command in the workspace and show how it ended.

use std::time::Duration;

use cy_tools::prelude::*;
use cy_tools::services::ProgressCounter;
use cy_tools::services::{ExecOptions, ShellResult};

use super::progress::{Measure, output_lines, reporting};

/// Run a shell command with `/bin/sh -c` in the workspace and return its exit code, stdout and
/// stderr. It starts in the workspace root (or `cwd`) with a clean environment. It and every
/// process it starts are killed at the timeout, and whatever it leaves running in the
/// background is killed when it exits: start servers and other long-running work with the
/// `process` tool instead. Very long output is cut, with a notice.
#[tool(
    title = "Run a shell command",
    capabilities(env),
    open_world,
    destructive
)]
pub async fn terminal(
    ctx: Ctx<'_>,
    call: CallInfo,
    /// The shell command, such as `ls -la` or `cargo test 2>&1 | tail -n 30`.
    command: String,
    /// Seconds before the command is killed; the workspace's default (usually 120) if left out.
    timeout: Option<u64>,
    /// Folder to run in, relative to the workspace root; the root when left out.
    cwd: Option<String>,
) -> ToolResult {
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
    let run = ctx.env().exec(&command, options);
    match reporting(&call, Measure::Count(&lines, output_lines), run).await {
        Ok(result) => render(&result, timeout),
        Err(err) => ToolResult::error(err.to_string()),
    }
}

/// The result the model sees: how the command ended, then its labelled output. Anything but a
/// zero exit code is an error result.
fn render(result: &ShellResult, timeout: Option<u64>) -> ToolResult {
    let streams = format!(
        "stdout:{}\nstderr:{}",
        section(&result.stdout),
        section(&result.stderr)
    );
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
        Some(0) => ToolResult::text(format!("exit code: 0\n{streams}")),
        Some(code) => ToolResult::error(format!(
            "the command failed with exit code {code}\n{streams}"
        )),
        None => ToolResult::error(format!("the command was killed by a signal\n{streams}")),
    }
}

/// One stream after its label: ` (empty)`, or a newline and the text without its final newline.
fn section(text: &str) -> String {
    if text.is_empty() {
        " (empty)".to_string()
    } else {
        format!("\n{}", text.strip_suffix('\n').unwrap_or(text))
    }
}
