//! `cy-tools agent` at a terminal: what the model writes (stdout) and each tool call with its
//! result (stderr), with control sequences shown escaped where they would reach a terminal;
//! and who is asked when a call needs approval.
//!
//! The model's text and the tools' output are anybody's text (a web page, a file, the model
//! repeating either): on a terminal, an OSC 52 sequence writes the clipboard, others clear the
//! screen, retitle the window or move the cursor over what was shown. So there they are shown
//! as text (`\x1b]52;c;...`); into a file or a pipe they go as they are.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;

use cy_tools::approval::{ApprovalRequest, Approver, Decision};
use cy_tools::{BoxFuture, ToolResult};

use super::terminal::AskOnTerminal;
use cy_tools_agent::{AgentEvents, ModelCall};

/// Results longer than this are cut on the terminal (the model gets them whole).
const SHOWN_RESULT: usize = 400;

/// What the model writes goes to stdout as it comes; tool calls and their results to stderr;
/// each escaped when it goes to a terminal.
pub(super) struct Terminal {
    escape_out: bool,
    escape_err: bool,
}

impl Terminal {
    pub(super) fn detect() -> Self {
        Terminal {
            escape_out: std::io::stdout().is_terminal(),
            escape_err: std::io::stderr().is_terminal(),
        }
    }

    /// `text` as it may go to stderr.
    pub(super) fn for_stderr<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.escape_err {
            escaped(text)
        } else {
            Cow::Borrowed(text)
        }
    }
}

impl AgentEvents for Terminal {
    fn text(&self, piece: &str) {
        let piece = if self.escape_out {
            escaped(piece)
        } else {
            Cow::Borrowed(piece)
        };
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(piece.as_bytes()).and_then(|()| out.flush());
    }

    fn tool_call(&self, call: &ModelCall) {
        let arguments = match &call.arguments {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let line = format!("{} {}", call.name, shorten(&arguments));
        eprintln!("\n-> {}", self.for_stderr(&line));
    }

    fn tool_result(&self, call: &ModelCall, result: &ToolResult) {
        let mark = if result.is_error { "error" } else { "ok" };
        let line = format!(
            "{} ({mark}): {}",
            call.name,
            shorten(&result.text_content())
        );
        eprintln!("<- {}", self.for_stderr(&line));
    }
}

/// One line of at most [`SHOWN_RESULT`] characters.
fn shorten(text: &str) -> String {
    let line = text.replace('\n', " ");
    match line.char_indices().nth(SHOWN_RESULT) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line,
    }
}

/// `text` with what a terminal would act on shown as text: the C0 controls but line feed and
/// tab (`\x1b`, `\r`, `\x07`...), DEL, the C1 controls (`\u{9b}` starts a sequence as ESC `[`
/// does) and the bidirectional overrides, which reorder what is shown.
pub(super) fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acted_on) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if acted_on(c) && u32::from(c) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if acted_on(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn acted_on(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Who the run's sessions ask (given to the factory, so code-mode calls and subagents ask
/// too): the person at the terminal, one
/// question at a time, when stdin and stderr are one (as `cy-tools call` asks); else nobody,
/// and the call is refused saying so. Never the session's chat: nobody reads it here.
pub(super) fn approver() -> Arc<dyn Approver> {
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Arc::new(OneAtATime {
            asking: tokio::sync::Mutex::new(()),
        })
    } else {
        Arc::new(NoTerminal)
    }
}

/// Asks on the terminal, one question at a time: a turn's calls run side by side, and two
/// questions at once would mix on the screen and race for the answer line.
struct OneAtATime {
    asking: tokio::sync::Mutex<()>,
}

impl Approver for OneAtATime {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let _turn = self.asking.lock().await;
            AskOnTerminal.ask(request).await
        })
    }
}

/// Nobody to ask: stdin or stderr is not a terminal.
struct NoTerminal;

impl Approver for NoTerminal {
    fn ask<'a>(&'a self, _request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        Box::pin(async {
            Decision::Unavailable {
                reason: "`cy-tools agent` has no terminal to ask on (its stdin or stderr is not one); run it at a terminal to be asked, or pass `--approve none` to let such calls run unasked".to_string(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::escaped;

    #[test]
    fn what_a_terminal_acts_on_is_shown_as_text() {
        assert_eq!(escaped("plain\ttext\nnext line"), "plain\ttext\nnext line");
        assert_eq!(
            escaped("copy\x1b]52;c;aGk=\x07 clear\x1b[2J\r over"),
            r"copy\x1b]52;c;aGk=\x07 clear\x1b[2J\r over"
        );
        assert_eq!(
            escaped("\u{9b}31m \u{7f} \u{202e}gnp"),
            r"\u{9b}31m \x7f \u{202e}gnp"
        );
        assert_eq!(escaped("é ✓"), "é ✓");
    }
}
