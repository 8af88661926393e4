//! One background process: its state, its unread output, its standard input, and the task
//! that watches it to its end.

use std::os::unix::process::ExitStatusExt;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use cy_tools::services::{ProcessInfo, ProcessOutput, ServiceError, ServiceErrorKind};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::sync::watch;
use tokio::time::Instant;

use super::ring::Ring;
use crate::exec::group::{ExitWatch, ProcessGroup};

/// How long output is still read once the process has exited; only a process that left the
/// group and kept the pipes open makes it matter.
const GRACE: Duration = Duration::from_secs(2);

/// Bytes read from a pipe at a time.
const CHUNK: usize = 16 * 1024;

pub(crate) struct Proc {
    pub(crate) id: String,
    command: String,
    pid: u32,
    pub(crate) group: ProcessGroup,
    state: Mutex<State>,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    /// Becomes true once the process has exited and its output has been read to the end.
    ended: watch::Sender<bool>,
}

struct State {
    running: bool,
    exit_code: Option<i32>,
    signal: Option<i32>,
    stdout: Ring,
    stderr: Ring,
}

#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

impl Proc {
    pub(crate) fn new(
        id: String,
        command: String,
        pid: u32,
        group: ProcessGroup,
        stdin: Option<ChildStdin>,
        buffer: usize,
    ) -> Self {
        Proc {
            id,
            command,
            pid,
            group,
            state: Mutex::new(State {
                running: true,
                exit_code: None,
                signal: None,
                stdout: Ring::new(buffer),
                stderr: Ring::new(buffer),
            }),
            stdin: tokio::sync::Mutex::new(stdin),
            ended: watch::Sender::new(false),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn running(&self) -> bool {
        self.state().running
    }

    fn info_of(&self, state: &State) -> ProcessInfo {
        ProcessInfo {
            id: self.id.clone(),
            command: self.command.clone(),
            pid: state.running.then_some(self.pid),
            running: state.running,
            exit_code: state.exit_code,
        }
    }

    pub(crate) fn info(&self) -> ProcessInfo {
        self.info_of(&self.state())
    }

    /// The output since the last call; a process that has ended gives up its last bytes too.
    pub(crate) fn take_output(&self) -> ProcessOutput {
        let mut state = self.state();
        let all = !state.running;
        let (stdout, dropped_out) = state.stdout.take(all);
        let (mut stderr, dropped_err) = state.stderr.take(all);
        if let Some(signal) = state.signal.take() {
            if !stderr.is_empty() && !stderr.ends_with('\n') {
                stderr.push('\n');
            }
            stderr.push_str(&format!("[the process was killed by signal {signal}]"));
        }
        ProcessOutput {
            info: self.info_of(&state),
            stdout,
            stderr,
            dropped_bytes: dropped_out + dropped_err,
        }
    }

    /// Kills the process's group and waits up to `wait` for it to be gone.
    pub(crate) async fn kill(&self, wait: Duration) {
        let mut ended = self.ended.subscribe();
        if *ended.borrow() {
            return;
        }
        self.group.kill();
        let _ = tokio::time::timeout(wait, ended.wait_for(|ended| *ended)).await;
    }

    /// Writes `data` to the process's standard input, waiting up to `wait` for it to read.
    pub(crate) async fn write_stdin(
        &self,
        data: &[u8],
        wait: Duration,
    ) -> Result<(), ServiceError> {
        let id = &self.id;
        let gone = || {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "process `{id}` has exited, so it reads no more input; start it again to send it input"
                ),
            )
        };
        if !self.running() {
            return Err(gone());
        }
        let mut stdin = self.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err(gone());
        };
        let written = async {
            pipe.write_all(data).await?;
            pipe.flush().await
        };
        match tokio::time::timeout(wait, written).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => {
                *stdin = None;
                Err(ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("process `{id}` closed its standard input, so it reads no more input"),
                ))
            }
            Ok(Err(err)) => Err(ServiceError::new(
                ServiceErrorKind::Other,
                format!("could not write to the standard input of process `{id}`: {err}"),
            )),
            Err(_) => Err(ServiceError::new(
                ServiceErrorKind::TimedOut,
                format!(
                    "process `{id}` did not read its standard input for {}s, so only part of the input may have been written; read its output to see what it is doing, or kill it",
                    wait.as_secs()
                ),
            )),
        }
    }

    fn push(&self, stream: Stream, bytes: &[u8]) {
        let mut state = self.state();
        match stream {
            Stream::Out => state.stdout.push(bytes),
            Stream::Err => state.stderr.push(bytes),
        }
    }
}

/// Owns the child while it runs; if the watching task is dropped (its runtime shut down),
/// the process's group is killed before the child is dropped, never after it is reaped.
struct Supervised {
    proc: Arc<Proc>,
    child: Child,
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.proc.group.finish();
    }
}

/// Reads the process's output into its buffers, feeds it `stdin`, and when its leader exits
/// kills what is left of its group, reaps it and records how it ended.
pub(crate) async fn supervise(
    proc: Arc<Proc>,
    child: Child,
    exit: ExitWatch,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    stdin: Option<Vec<u8>>,
) {
    let mut supervised = Supervised {
        proc: proc.clone(),
        child,
    };
    let mut exited = false;
    let mut drained = false;
    let mut status = None;
    // A block, so the feeding future (which may hold the stdin lock) is gone before the
    // lock is taken below.
    {
        let feed = async {
            if let Some(data) = stdin {
                let _ = proc.write_stdin(&data, Duration::MAX).await;
            }
        };
        let mut output = pin!(async {
            tokio::join!(
                feed,
                pump(&proc, Stream::Out, stdout),
                pump(&proc, Stream::Err, stderr)
            )
        });
        let mut exit = pin!(exit.exited());
        let mut grace = pin!(tokio::time::sleep(Duration::from_secs(86_400)));
        loop {
            tokio::select! {
                _ = &mut output, if !drained => drained = true,
                _ = &mut exit, if !exited => {
                    exited = true;
                    proc.group.finish();
                    // Reaped at once, so a finished process never lingers as a zombie.
                    status = supervised.child.try_wait().ok().flatten();
                    grace.as_mut().reset(Instant::now() + GRACE);
                }
                () = &mut grace, if exited => break,
            }
            if exited && drained {
                break;
            }
        }
    }
    *proc.stdin.lock().await = None;
    let mut state = proc.state();
    state.running = false;
    state.exit_code = status.and_then(|s| s.code());
    state.signal = status.and_then(|s| s.signal());
    drop(state);
    proc.ended.send_replace(true);
    drop(supervised);
}

async fn pump(proc: &Proc, stream: Stream, reader: Option<impl AsyncRead + Unpin>) {
    let Some(mut reader) = reader else {
        return;
    };
    let mut chunk = vec![0u8; CHUNK];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => proc.push(stream, &chunk[..n]),
        }
    }
}
