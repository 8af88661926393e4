//! The host's hook configuration file (`--hooks-file`): the hook commands, which tools each
//! applies to, their timeouts, and the result limits, in the shape of Claude Code's `hooks`
//! settings. A host's file, never a spec's: a store carries specs to other workers, and hooks
//! run commands on the machine that serves the session.
//!
//! ```json
//! {
//!   "hooks": {
//!     "PreToolUse": [
//!       {"matcher": "write_file|terminal", "hooks": [{"type": "command", "command": "./audit", "timeout": 10}]}
//!     ],
//!     "PostToolUse": [
//!       {"hooks": [{"type": "command", "command": "./redact"}]}
//!     ]
//!   },
//!   "approval": "first",
//!   "maxResultBytes": 100000,
//!   "maxImageBytes": 1048576,
//!   "toolResultBytes": {"read_file": 400000}
//! }
//! ```
//!
//! A `matcher` is a regular expression matched against the whole tool name; absent, `""` or
//! `"*"` matches every tool. A hook's `timeout` (seconds) replaces `--hook-timeout` for it.
//! `approval` places the built-in approval hook `"first"` (before the file's hooks) or
//! `"last"` (the default: after every hook).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

/// The file, read and checked.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct HooksFile {
    #[serde(default)]
    pub(super) hooks: Events,
    #[serde(default)]
    pub(super) approval: Option<ApprovalPlace>,
    #[serde(default)]
    pub(super) max_result_bytes: Option<usize>,
    #[serde(default)]
    pub(super) max_image_bytes: Option<usize>,
    #[serde(default)]
    pub(super) tool_result_bytes: BTreeMap<String, usize>,
}

/// Where the approval question sits among the hooks.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(super) enum ApprovalPlace {
    First,
    Last,
}

/// The hooks of each event, in order.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Events {
    #[serde(rename = "PreToolUse", default)]
    pub(super) pre: Vec<Matched>,
    #[serde(rename = "PostToolUse", default)]
    pub(super) post: Vec<Matched>,
}

/// Hook commands and the tools they apply to.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Matched {
    #[serde(default)]
    matcher: Option<String>,
    pub(super) hooks: Vec<CommandEntry>,
}

/// One hook command.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CommandEntry {
    #[serde(rename = "type")]
    kind: String,
    pub(super) command: String,
    #[serde(default)]
    timeout: Option<u64>,
}

impl Matched {
    /// The tools these hooks apply to: `None` for every tool.
    pub(super) fn matcher(&self) -> Option<regex::Regex> {
        // Checked when the file was read, so building it again cannot fail.
        compile(self.matcher.as_deref()).ok().flatten()
    }
}

impl CommandEntry {
    /// Its own timeout, when it gives one.
    pub(super) fn timeout(&self) -> Option<Duration> {
        self.timeout.map(Duration::from_secs)
    }
}

fn compile(matcher: Option<&str>) -> Result<Option<regex::Regex>, regex::Error> {
    match matcher {
        None | Some("" | "*") => Ok(None),
        Some(pattern) => regex::Regex::new(&format!("^(?:{pattern})$")).map(Some),
    }
}

/// Reads and checks the file at `path` (clap's parser for `--hooks-file`): every problem
/// names where it is and what to write instead.
pub(super) fn read(path: &str) -> Result<HooksFile, String> {
    let text = std::fs::read_to_string(Path::new(path)).map_err(|err| {
        format!("the hooks file could not be read ({err}); give a readable JSON file")
    })?;
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let mut track = serde_path_to_error::Track::new();
    let file = HooksFile::deserialize(serde_path_to_error::Deserializer::new(
        &mut deserializer,
        &mut track,
    ))
    .map_err(|err| {
        let at = track.path().to_string();
        let at = if at == "." { String::new() } else { format!(" at `{at}`") };
        format!(
            "the hooks file is not valid{at}: {err}. It takes `hooks` (`PreToolUse`, `PostToolUse`: lists of {{\"matcher\", \"hooks\": [{{\"type\": \"command\", \"command\", \"timeout\"}}]}}), `approval` (\"first\" or \"last\"), `maxResultBytes`, `maxImageBytes` and `toolResultBytes`"
        )
    })?;
    for (event, list) in [
        ("PreToolUse", &file.hooks.pre),
        ("PostToolUse", &file.hooks.post),
    ] {
        for (i, matched) in list.iter().enumerate() {
            if let Err(err) = compile(matched.matcher.as_deref()) {
                return Err(format!(
                    "the hooks file's `hooks.{event}[{i}].matcher` is not a regular expression ({err}); write a tool name, `a|b`, or `*` for every tool"
                ));
            }
            for (j, entry) in matched.hooks.iter().enumerate() {
                let at = format!("hooks.{event}[{i}].hooks[{j}]");
                if entry.kind != "command" {
                    return Err(format!(
                        "the hooks file's `{at}.type` is `{}`; only `command` hooks are run",
                        entry.kind
                    ));
                }
                if entry.command.trim().is_empty() {
                    return Err(format!(
                        "the hooks file's `{at}.command` is empty; give the command to run"
                    ));
                }
                if entry.timeout == Some(0) {
                    return Err(format!(
                        "the hooks file's `{at}.timeout` is 0; give at least 1 second"
                    ));
                }
            }
        }
    }
    let zero = [
        ("maxResultBytes", file.max_result_bytes),
        ("maxImageBytes", file.max_image_bytes),
    ]
    .into_iter()
    .find(|(_, bytes)| *bytes == Some(0))
    .map(|(key, _)| key.to_string())
    .or_else(|| {
        file.tool_result_bytes
            .iter()
            .find(|(_, bytes)| **bytes == 0)
            .map(|(tool, _)| format!("toolResultBytes.{tool}"))
    });
    if let Some(key) = zero {
        return Err(format!(
            "the hooks file's `{key}` is 0; give at least 1 byte (a result is cut past it, never emptied)"
        ));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::compile;

    #[test]
    fn a_matcher_matches_whole_names() {
        let m = compile(Some("write_file|terminal")).unwrap().unwrap();
        assert!(m.is_match("terminal"));
        assert!(!m.is_match("terminal_2"));
        assert!(compile(Some("*")).unwrap().is_none());
        assert!(compile(Some("(")).is_err());
    }
}
