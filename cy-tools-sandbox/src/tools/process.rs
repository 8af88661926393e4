//! `process`: the session's background processes, one tool with an `action`.

use cy_tools::prelude::*;
use cy_tools::services::{ExecOptions, ProcessInfo, ProcessTable};
use schemars::JsonSchema;
use serde::Deserialize;

use super::progress::{Measure, reporting};

/// What to do with the session's background processes: `start` a command, see a process's
/// `status`, read its new `output`, `write` to its standard input, `kill` it, or `list` them
/// all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
// Inlined and without per-variant docs, so the schema is a plain string enum (`"enum": [...]`)
// that every provider accepts and the field list in error messages shows as a string.
#[schemars(inline)]
#[allow(missing_docs)]
pub enum ProcessAction {
    Start,
    Status,
    Output,
    Write,
    Kill,
    List,
}

impl ProcessAction {
    fn name(self) -> &'static str {
        match self {
            ProcessAction::Start => "start",
            ProcessAction::Status => "status",
            ProcessAction::Output => "output",
            ProcessAction::Write => "write",
            ProcessAction::Kill => "kill",
            ProcessAction::List => "list",
        }
    }

    /// The optional fields this action uses.
    fn fields(self) -> &'static [&'static str] {
        match self {
            ProcessAction::Start => &["command", "cwd"],
            ProcessAction::Status | ProcessAction::Output | ProcessAction::Kill => &["id"],
            ProcessAction::Write => &["id", "input"],
            ProcessAction::List => &[],
        }
    }
}

/// Run and control background processes in the workspace: servers, watchers and other work
/// that outlives one call. `start` a shell command (`/bin/sh -c`, clean environment) and get
/// its id (`p1`, `p2`, ...); then read its new `output`, check its `status`, `write` to its
/// standard input, or `kill` it and everything it started; `list` shows them all. Unread
/// output is kept up to a limit, oldest dropped first, so read it regularly. Every process is
/// killed when the session ends. For a command that finishes on its own, use `terminal`.
#[tool(
    title = "Background process",
    capabilities(env),
    open_world,
    destructive
)]
pub async fn process(
    ctx: Ctx<'_>,
    call: CallInfo<'_>,
    /// What to do: `start` runs `command` in the background and returns its id; `status`,
    /// `output` (what it wrote since the last `output`), `write` (send `input`) and `kill` act on
    /// process `id`; `list` shows every process of the session.
    action: ProcessAction,
    /// For `start`: the shell command to run, such as `python3 -m http.server 8000`.
    command: Option<String>,
    /// For `start`: folder to run in, relative to the workspace root; the root when left out.
    cwd: Option<String>,
    /// For `status`, `output`, `write` and `kill`: the id `start` returned, such as `p1`.
    id: Option<String>,
    /// For `write`: the text to send to standard input; end a line with `\n`.
    input: Option<String>,
) -> Result<String, ToolError> {
    let given = [
        ("command", command.is_some()),
        ("cwd", cwd.is_some()),
        ("id", id.is_some()),
        ("input", input.is_some()),
    ];
    for (field, present) in given {
        if present && !action.fields().contains(&field) {
            return Err(ToolError::new(format!(
                "`{field}` is not used by action `{}`; {}",
                action.name(),
                uses(action)
            )));
        }
    }
    let table = ctx.env().processes()?;
    match action {
        ProcessAction::Start => {
            let command = required(action, command, "command")?;
            if command.trim().is_empty() {
                return Err(ToolError::new(
                    "`command` is empty; pass the shell command to run, such as `npm run dev`",
                ));
            }
            let options = ExecOptions {
                cwd,
                ..ExecOptions::default()
            };
            let info = table.start(&command, options).await?;
            Ok(format!(
                "started `{id}`{pid}: `{command}`\nread what it writes with action `output` and id `{id}`",
                id = info.id,
                pid = pid(&info),
                command = info.command
            ))
        }
        ProcessAction::Status => {
            let id = required(action, id, "id")?;
            Ok(describe(&table.status(&id).await?))
        }
        ProcessAction::Output => {
            let id = required(action, id, "id")?;
            let output = table.output(&id).await?;
            let mut text = describe(&output.info);
            if output.dropped_bytes > 0 {
                text.push_str(&format!(
                    "\n[{} bytes of older output were dropped before they were read; read the output more often]",
                    output.dropped_bytes
                ));
            }
            text.push_str(&format!(
                "\nstdout:{}\nstderr:{}",
                section(&output.stdout),
                section(&output.stderr)
            ));
            Ok(text)
        }
        ProcessAction::Write => {
            let id = required(action, id, "id")?;
            let input = required(action, input, "input")?;
            if input.is_empty() {
                return Err(ToolError::new(
                    "`input` is empty; pass the text to send, ending a line with `\\n`",
                ));
            }
            let what = format!("`{id}` to take the input");
            let write = table.write_stdin(&id, input.clone().into_bytes());
            reporting(&call, Measure::Waiting(&what), write).await?;
            Ok(format!(
                "wrote {} bytes to the standard input of `{id}`; read its reply with action `output`",
                input.len()
            ))
        }
        ProcessAction::Kill => {
            let id = required(action, id, "id")?;
            let what = format!("`{id}` and what it started to exit");
            reporting(&call, Measure::Waiting(&what), kill(table, &id)).await
        }
        ProcessAction::List => {
            let all = table.list().await?;
            if all.is_empty() {
                return Ok(
                    "no background processes in this session; start one with action `start`"
                        .to_string(),
                );
            }
            let lines: Vec<String> = all.iter().map(describe).collect();
            Ok(lines.join("\n"))
        }
    }
}

async fn kill(table: &dyn ProcessTable, id: &str) -> Result<String, ToolError> {
    let before = table.status(id).await?;
    if !before.running {
        return Ok(format!("{}; nothing to kill", describe(&before)));
    }
    let after = table.kill(id).await?;
    if after.running {
        return Err(ToolError::new(format!(
            "`{id}` was sent SIGKILL but has not exited yet; check again with action `status`"
        )));
    }
    Ok(format!(
        "killed `{id}` and every process it started: `{}`",
        after.command
    ))
}

fn required(
    action: ProcessAction,
    value: Option<String>,
    field: &str,
) -> Result<String, ToolError> {
    value.ok_or_else(|| {
        let hint = match field {
            "command" => "the shell command to run in the background",
            "id" => "the id `start` returned, such as `p1` (action `list` shows them)",
            _ => "the text to send to standard input",
        };
        ToolError::new(format!(
            "action `{}` needs `{field}`: {hint}",
            action.name()
        ))
    })
}

fn uses(action: ProcessAction) -> String {
    match action.fields() {
        [] => format!("action `{}` takes no other field", action.name()),
        fields => {
            let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            format!(
                "action `{}` takes only {}",
                action.name(),
                fields.join(" and ")
            )
        }
    }
}

fn pid(info: &ProcessInfo) -> String {
    info.pid
        .map(|pid| format!(" (pid {pid})"))
        .unwrap_or_default()
}

/// One line: the id, how it is doing, the command.
fn describe(info: &ProcessInfo) -> String {
    let state = if info.running {
        format!("is running{}", pid(info))
    } else {
        match info.exit_code {
            Some(code) => format!("exited with code {code}"),
            None => "was killed by a signal".to_string(),
        }
    };
    format!("`{}` {state}: `{}`", info.id, info.command)
}

/// One stream after its label: ` (no new output)`, or a newline and the text without its final
/// newline.
fn section(text: &str) -> String {
    if text.is_empty() {
        " (no new output)".to_string()
    } else {
        format!("\n{}", text.strip_suffix('\n').unwrap_or(text))
    }
}
