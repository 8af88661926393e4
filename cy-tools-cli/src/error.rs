//! A command-line error: one line for stderr.

use std::fmt;

/// What went wrong, and what to do about it; printed as `error: {message}`.
#[derive(Debug)]
pub(crate) struct CliError {
    message: String,
}

impl CliError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the parts it was made of said.
        f.write_str(&self.message.replace('\n', " "))
    }
}
