//! The built-in tools that work in a session's sandbox. Each registers itself at link time; the
//! statics (`READ_FILE`, ...) are the context-free definitions. The tools that need a session's
//! factory, coordinator or chat (`delegate`, `workflow`, `signal`, `send_message`) are in
//! `cy-tools-session`.
//!
//! What every one of them answers: an error result (`is_error`) only when the tool could not do
//! its job (arguments refused, a path outside the workspace, a command that could not start,
//! timed out, was cancelled or killed by a signal). A `terminal` command or an `execute_code`
//! run that ran and exited is a normal result whatever its exit code, with the structured copy
//! of its exit code and streams: the exit code is the model's answer, and agent frameworks
//! retry a tool error or give up on it. Every optional field of their schemas takes `null` or
//! declares a default, so a strict converter that makes every field required still leaves the
//! model the choice.

pub mod edit_file;
pub mod execute_code;
pub mod find_files;
pub mod list_directory;
mod outcome;
pub mod process;
mod progress;
pub mod read_file;
pub mod search_text;
pub mod terminal;
mod text;
pub mod write_file;
