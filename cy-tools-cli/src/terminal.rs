//! `call` at a terminal: a progress line on stderr, and approval asked on the terminal.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cy_tools::BoxFuture;
use cy_tools::approval::{ApprovalRequest, Approver, Decision};
use cy_tools::call::{CallHooks, Progress, ProgressSink};

/// Erases the line the cursor is on and goes back to its start.
const CLEAR_LINE: &str = "\r\x1b[2K";

/// What a terminal gives one call: a progress line when stderr is a terminal, and questions
/// on it when stdin is one too. Nothing when they are files or pipes: a script reads only the
/// result.
pub(super) struct Terminal {
    progress: Option<Arc<ProgressLine>>,
    asks: bool,
}

impl Terminal {
    pub(super) fn detect(tool: &str) -> Self {
        let on_stderr = std::io::stderr().is_terminal();
        Terminal {
            progress: on_stderr.then(|| {
                Arc::new(ProgressLine {
                    tool: tool.to_string(),
                    shown: AtomicBool::new(false),
                })
            }),
            asks: on_stderr && std::io::stdin().is_terminal(),
        }
    }

    pub(super) fn hooks(&self) -> CallHooks {
        CallHooks {
            progress: self
                .progress
                .clone()
                .map(|line| line as Arc<dyn ProgressSink>),
            approver: self
                .asks
                .then(|| Arc::new(AskOnTerminal) as Arc<dyn cy_tools::approval::Approver>),
            // The tool's log messages go to the command's own log (stderr, by `--log`).
            log: None,
            // A tool's questions to a model or a person are not asked on the terminal yet:
            // the tool is told nobody can be asked.
            asker: None,
        }
    }

    /// Erases the progress line, if one is shown, before the result is printed.
    pub(super) fn finish(&self) {
        if let Some(line) = &self.progress
            && line.shown.swap(false, Ordering::SeqCst)
        {
            let _ = write!(std::io::stderr(), "{CLEAR_LINE}");
        }
    }
}

struct ProgressLine {
    tool: String,
    shown: AtomicBool,
}

impl ProgressSink for ProgressLine {
    fn report(&self, progress: Progress) {
        self.shown.store(true, Ordering::SeqCst);
        let _ = write!(
            std::io::stderr(),
            "{CLEAR_LINE}{}",
            line(&self.tool, &progress)
        );
    }
}

/// The progress line: `terminal: 12 lines of output so far`, or the numbers when the tool
/// gave no message.
fn line(tool: &str, progress: &Progress) -> String {
    match (&progress.message, progress.total) {
        (Some(message), _) => format!("{tool}: {message}"),
        (None, Some(total)) => format!("{tool}: {}/{total}", progress.done),
        (None, None) => format!("{tool}: {}", progress.done),
    }
}

/// Asks on the terminal: the question on stderr, the answer a line on stdin.
pub(super) struct AskOnTerminal;

impl Approver for AskOnTerminal {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> BoxFuture<'a, Decision> {
        let question = request.question();
        Box::pin(async move {
            let asked = tokio::task::spawn_blocking(move || {
                eprint!("{CLEAR_LINE}{question} [y/N] ");
                let mut answer = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut answer)
                    .map(|_| answer)
            })
            .await;
            let by = format!(
                "terminal user `{}`",
                std::env::var("USER").unwrap_or_else(|_| "unknown".to_string())
            );
            match asked {
                Ok(Ok(answer)) if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") => {
                    Decision::Approved { by }
                }
                Ok(Ok(answer)) => {
                    let answer = answer.trim();
                    // A plain no gives no reason; anything else typed is one.
                    let plain = matches!(answer, "" | "n" | "N" | "no" | "No");
                    Decision::Declined {
                        by,
                        reason: (!plain).then(|| answer.to_string()),
                    }
                }
                Ok(Err(err)) => Decision::Unavailable {
                    reason: format!(
                        "the terminal could not be read ({err}); pass `--approve none` to run without asking"
                    ),
                },
                Err(err) => Decision::Unavailable {
                    reason: format!(
                        "the question could not be asked ({err}); pass `--approve none` to run without asking"
                    ),
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_prefers_the_message() {
        let mut progress = Progress {
            done: 3.0,
            total: Some(10.0),
            message: Some("3 files searched".into()),
        };
        assert_eq!(
            line("search_text", &progress),
            "search_text: 3 files searched"
        );
        progress.message = None;
        assert_eq!(line("search_text", &progress), "search_text: 3/10");
        progress.total = None;
        assert_eq!(line("search_text", &progress), "search_text: 3");
    }
}
