//! Hooks the operator runs around every call (`--pre-tool-hook`, `--post-tool-hook`, or a host
//! configuration file, `--hooks-file`, see [`hooks_file`](super::hooks_file)): external
//! commands in the shape Claude Code documents for its PreToolUse and PostToolUse hooks, and the
//! result limits (`--max-result-bytes`). The host's settings, never a spec's.
//!
//! A hook command runs with `sh -c`, gets the call as JSON on stdin and decides by its exit code
//! and stdout:
//!
//! * exit 0 with nothing on stdout: pass;
//! * exit 0 with JSON: before a call, `hookSpecificOutput.permissionDecision` `"deny"` refuses
//!   (with `permissionDecisionReason`), `hookSpecificOutput.updatedInput` rewrites the arguments;
//!   `"decision": "block"` (with `reason`) refuses too. After a call, `"decision": "block"`
//!   replaces the result with an error saying `reason`, and
//!   `hookSpecificOutput.updatedToolOutput` (text) replaces the result's content;
//! * exit 2: refuse, stderr being the reason;
//! * anything else, output that is not JSON, or no answer within `--hook-timeout`: the call is
//!   refused (fail closed), naming the hook.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::BoxFuture;
use cy_tools::ToolResult;
use cy_tools::call::hook::{After, Before, CallHook, HookCall, HookError, Hooks, ResultLimits};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt as _;

use super::hooks_file::{ApprovalPlace, HooksFile};

/// The hook options `call`, `mcp` and `agent` share.
#[derive(Debug, Default, clap::Args)]
pub(super) struct HookArgs {
    /// A command run before every call (repeatable, in order), as Claude Code's PreToolUse
    /// hooks: the call as JSON on stdin; exit 2 or `{"hookSpecificOutput": {"permissionDecision":
    /// "deny", "permissionDecisionReason": "..."}}` refuses it, `"updatedInput": {...}` rewrites
    /// its arguments; any other failure refuses it too
    #[arg(long, value_name = "COMMAND")]
    pub(super) pre_tool_hook: Vec<String>,
    /// A command run after every call (repeatable), as Claude Code's PostToolUse hooks: the
    /// call and its result as JSON on stdin; `{"decision": "block", "reason": "..."}` withholds
    /// the result, `{"hookSpecificOutput": {"updatedToolOutput": "..."}}` replaces it
    #[arg(long, value_name = "COMMAND")]
    pub(super) post_tool_hook: Vec<String>,
    /// How long a hook command may take before the call is refused
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) hook_timeout: u64,
    /// The most bytes of text one result gives the model; the rest is written to
    /// `.cy-tools/results/` in the workspace and the model told where
    #[arg(long, value_name = "BYTES", default_value_t = cy_tools::call::hook::DEFAULT_TEXT_BYTES as u64, value_parser = clap::value_parser!(u64).range(1..))]
    pub(super) max_result_bytes: u64,
    /// The host's hook configuration, JSON in Claude Code's `hooks` shape (`PreToolUse` and
    /// `PostToolUse` lists of `{"matcher": "write_file|terminal", "hooks": [{"type":
    /// "command", "command": "...", "timeout": 10}]}`), with `"approval": "first"|"last"`,
    /// `maxResultBytes`, `maxImageBytes` and `toolResultBytes` per tool. Its hooks run before
    /// the flags' hooks; its limits replace `--max-result-bytes`
    #[arg(long, value_name = "FILE", value_parser = super::hooks_file::read)]
    pub(super) hooks_file: Option<HooksFile>,
}

impl HookArgs {
    /// The hooks asked for, in order: the file's (approval first when it says so), then the
    /// flags' pre hooks, then their post hooks.
    pub(super) fn hooks(&self) -> Hooks {
        let shared = Duration::from_secs(self.hook_timeout);
        let mut hooks = Hooks::default().with_timeout(shared);
        let file = self.hooks_file.as_ref();
        if file.and_then(|f| f.approval) == Some(ApprovalPlace::First) {
            hooks = hooks.with_approval();
        }
        if let Some(file) = file {
            for (event, list) in [
                (Event::Pre, &file.hooks.pre),
                (Event::Post, &file.hooks.post),
            ] {
                for matched in list {
                    let only = matched.matcher();
                    for entry in &matched.hooks {
                        let hook = CommandHook::new(&entry.command, event).only(only.clone());
                        hooks = hooks.with_timed(Arc::new(hook), entry.timeout().unwrap_or(shared));
                    }
                }
            }
        }
        for command in &self.pre_tool_hook {
            hooks = hooks.with(Arc::new(CommandHook::new(command, Event::Pre)));
        }
        for command in &self.post_tool_hook {
            hooks = hooks.with(Arc::new(CommandHook::new(command, Event::Post)));
        }
        hooks
    }

    /// The result limits asked for: the file's, else `--max-result-bytes`.
    pub(super) fn limits(&self) -> ResultLimits {
        let file = self.hooks_file.as_ref();
        let text = file
            .and_then(|f| f.max_result_bytes)
            .unwrap_or(usize::try_from(self.max_result_bytes).unwrap_or(usize::MAX));
        let mut limits = ResultLimits::default().with_text_bytes(text);
        if let Some(bytes) = file.and_then(|f| f.max_image_bytes) {
            limits = limits.with_image_bytes(bytes);
        }
        for (tool, bytes) in file.map(|f| &f.tool_result_bytes).into_iter().flatten() {
            limits = limits.with_tool_text_bytes(tool.clone(), *bytes);
        }
        limits
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Event {
    Pre,
    Post,
}

/// One hook command.
struct CommandHook {
    command: String,
    name: String,
    event: Event,
    /// The tools it applies to (the others pass it by): `None` for every tool.
    only: Option<regex::Regex>,
}

impl CommandHook {
    fn new(command: &str, event: Event) -> Self {
        let short: String = command.chars().take(60).collect();
        CommandHook {
            command: command.to_string(),
            name: if short.len() < command.len() {
                format!("{short}...")
            } else {
                short
            },
            event,
            only: None,
        }
    }

    /// The same hook, applied only to the tools `only` matches.
    fn only(mut self, only: Option<regex::Regex>) -> Self {
        self.only = only;
        self
    }

    /// Whether it sees `event` for `tool`.
    fn applies(&self, event: Event, tool: &str) -> bool {
        self.event == event && self.only.as_ref().is_none_or(|only| only.is_match(tool))
    }

    /// Runs the command with `input` on stdin: its decision as JSON (`Null` for none), or
    /// `Err` when it refused (exit 2) or failed.
    async fn run(&self, input: Value) -> Result<Result<Value, String>, HookError> {
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A hook that times out is dropped, and its process with it.
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| HookError::new(format!("it could not be started: {err}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A hook that does not read its input still decides: a closed pipe is no error.
            let _ = stdin.write_all(input.to_string().as_bytes()).await;
        }
        let output = child
            .wait_with_output()
            .await
            .map_err(|err| HookError::new(format!("it could not be waited for: {err}")))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) if stdout.trim().is_empty() => Ok(Ok(Value::Null)),
            Some(0) => serde_json::from_str(stdout.trim()).map(Ok).map_err(|err| {
                HookError::new(format!("its output is not JSON ({err}): {}", stdout.trim()))
            }),
            Some(2) => Ok(Err(stderr.trim().to_string())),
            code => Err(HookError::new(format!(
                "it exited with {}{}",
                code.map_or_else(|| "a signal".to_string(), |c| format!("status {c}")),
                if stderr.trim().is_empty() {
                    String::new()
                } else {
                    format!(": {}", stderr.trim())
                }
            ))),
        }
    }
}

fn input(call: &HookCall<'_>, event: &str) -> Value {
    json!({
        "hook_event_name": event,
        "session_id": call.session.session_id,
        "tool_name": call.tool,
        "tool_use_id": call.call_id,
        "tool_input": call.arguments,
    })
}

impl CallHook for CommandHook {
    fn name(&self) -> &str {
        &self.name
    }

    fn before<'a>(&'a self, call: &'a HookCall<'a>) -> BoxFuture<'a, Result<Before, HookError>> {
        Box::pin(async move {
            if !self.applies(Event::Pre, call.tool) {
                return Ok(Before::Pass);
            }
            let decision = match self.run(input(call, "PreToolUse")).await? {
                Ok(decision) => decision,
                Err(reason) => return Ok(Before::Refuse(reason_or(reason))),
            };
            let specific = &decision["hookSpecificOutput"];
            let denied =
                specific["permissionDecision"] == "deny" || decision["decision"] == "block";
            if denied {
                let reason = specific["permissionDecisionReason"]
                    .as_str()
                    .or(decision["reason"].as_str())
                    .unwrap_or_default();
                return Ok(Before::Refuse(reason_or(reason.to_string())));
            }
            match &specific["updatedInput"] {
                Value::Object(arguments) => Ok(Before::Rewrite(arguments.clone())),
                Value::Null => Ok(Before::Pass),
                other => Err(HookError::new(format!(
                    "its `updatedInput` is not an object: {other}"
                ))),
            }
        })
    }

    fn after<'a>(
        &'a self,
        call: &'a HookCall<'a>,
        result: &'a ToolResult,
    ) -> BoxFuture<'a, Result<After, HookError>> {
        Box::pin(async move {
            if !self.applies(Event::Post, call.tool) {
                return Ok(After::Keep);
            }
            let mut input = input(call, "PostToolUse");
            input["tool_response"] = json!({
                "content": result.text_content(),
                "is_error": result.is_error,
            });
            let decision = match self.run(input).await? {
                Ok(decision) => decision,
                Err(reason) => {
                    return Ok(After::Replace(ToolResult::error(format!(
                        "the result of `{}` was withheld by hook `{}`: {}",
                        call.tool,
                        self.name,
                        reason_or(reason)
                    ))));
                }
            };
            if decision["decision"] == "block" {
                let reason = decision["reason"].as_str().unwrap_or_default();
                return Ok(After::Replace(ToolResult::error(format!(
                    "the result of `{}` was withheld by hook `{}`: {}",
                    call.tool,
                    self.name,
                    reason_or(reason.to_string())
                ))));
            }
            match &decision["hookSpecificOutput"]["updatedToolOutput"] {
                Value::String(text) => Ok(After::Replace(ToolResult {
                    is_error: result.is_error,
                    ..ToolResult::text(text.clone())
                })),
                Value::Null => Ok(After::Keep),
                other => Err(HookError::new(format!(
                    "its `updatedToolOutput` is not text: {other}"
                ))),
            }
        })
    }
}

fn reason_or(reason: String) -> String {
    if reason.trim().is_empty() {
        "the hook gave no reason".to_string()
    } else {
        reason
    }
}
