//! Noticing that the client is gone without having closed our stdin first: the reading end of
//! our stdout is closed (the client died, or was killed).

use std::os::fd::AsFd as _;

use tokio::io::Interest;
use tokio::net::unix::pipe;

/// Resolves once nobody can read this process's stdout any more: it is a pipe whose reading
/// end is closed. Never resolves while the client is there, nor when stdout cannot be watched
/// this way (a file, a terminal, a socket).
///
/// A client that closes only our stdin may still be reading the answers to calls in flight,
/// which the server gives a few seconds to finish. One whose end of stdout is closed can read
/// nothing, so waiting for those calls would only keep their work (and processes) running.
pub(crate) async fn stdout_closed() {
    if let Some(watch) = watch_stdout() {
        // The kernel flags the writing end of a pipe with an error once its last reader is
        // gone; the watch only waits for that flag and never writes.
        while let Ok(ready) = watch.ready(Interest::ERROR).await {
            if ready.is_error() {
                return;
            }
        }
    }
    std::future::pending::<()>().await;
}

/// A copy of stdout's descriptor, registered with the runtime to be told of errors. It is not
/// switched to non-blocking mode (that flag would be shared with stdout itself, whose writer
/// expects blocking writes), which is fine as nothing is ever written through it.
fn watch_stdout() -> Option<pipe::Sender> {
    let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let is_pipe = std::fs::File::from(fd.try_clone().ok()?)
        .metadata()
        .ok()
        .is_some_and(|meta| std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
    if !is_pipe {
        return None;
    }
    pipe::Sender::from_owned_fd_unchecked(fd).ok()
}
