//! `PassedFd`: an open descriptor handed to a command at its start.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

/// An open descriptor (a connected socket, say) that a command inherits, and the environment
/// variable that tells the command its number.
///
/// Only the command it is passed to gets it: the descriptor stays close-on-exec in this
/// process, and is made inheritable in the new process alone, after it forks and before it
/// runs the command. So a command started at the same moment for another session cannot
/// inherit it by accident, and nothing secret (a path, a token) needs to be in the
/// environment: holding the descriptor is the authority.
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::services::PassedFd;
///
/// let (mine, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
/// let passed = PassedFd::new(Arc::new(theirs.into()), "MY_CHANNEL_FD");
/// assert_eq!(passed.var(), "MY_CHANNEL_FD");
/// assert!(passed.raw() >= 0);
/// # drop(mine);
/// ```
#[derive(Clone, Debug)]
pub struct PassedFd {
    fd: Arc<OwnedFd>,
    var: String,
}

impl PassedFd {
    /// Passes `fd`; the command finds its number in variable `var`.
    pub fn new(fd: Arc<OwnedFd>, var: impl Into<String>) -> Self {
        PassedFd {
            fd,
            var: var.into(),
        }
    }

    /// The variable holding the descriptor's number in the command's environment.
    pub fn var(&self) -> &str {
        &self.var
    }

    /// The descriptor's number (the same in this process and in the command).
    pub fn raw(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// The descriptor itself.
    pub fn fd(&self) -> &Arc<OwnedFd> {
        &self.fd
    }
}
