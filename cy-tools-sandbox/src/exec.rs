//! Running one shell command in a view, to its end or its timeout.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::pin::pin;
use std::time::Duration;

use cy_tools::services::{ExecOptions, ServiceError, ServiceErrorKind, ShellResult};
use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

use crate::ExecLimits;
use crate::isolation::Confinements;
use capture::{Capture, drain};
use command::Launch;
use group::watch_exit;

// Helpers shared with the process table. (Their own files under `exec/`; they could move up
// to `sandbox/` beside the other modules.)
pub(super) mod capture;
pub(super) mod cgroup;
pub(super) mod command;
pub(super) mod group;
mod resources;

/// How long output is still read once the command is over (its leader exited, or its group
/// was killed). Only a process that left the group and kept the pipes open makes it matter.
const GRACE: Duration = Duration::from_secs(2);

/// Runs `command` with `/bin/sh -c` in `cwd`, `HOME` set to `home`, under `limits`, in a
/// cgroup under the view's `cgroup`.
///
/// The command runs in a process group and a cgroup of its own. Both are killed when the
/// command's leader exits (so nothing it left running in the background outlives the call,
/// not even a process that left the group), at the timeout, on cancellation, and when this
/// future is dropped.
pub(crate) async fn run(
    command: &str,
    cwd: &Path,
    home: &Path,
    options: ExecOptions,
    limits: &ExecLimits,
    (confinements, cgroup): (&Confinements, &cgroup::ViewCgroup),
) -> Result<ShellResult, ServiceError> {
    let timeout = limits.timeout_for(options.timeout)?;
    let cap = options.output_limit.unwrap_or(limits.output_limit);
    let resources = options.resources.unwrap_or(limits.resources);
    let launch = Launch {
        cwd,
        home,
        env: &options.env,
        limits,
        resources: &resources,
        stdin: options.stdin.is_some(),
        pass_fds: &options.pass_fds,
        read_only: &options.read_only,
        confinements,
        cgroup,
    };
    // Kept whole: dropping it drops the group (killing it) before the still unreaped child,
    // whichever way this future ends.
    let mut started = command::start(command, &launch)?;
    let group = &started.group;
    let exit = watch_exit(started.pid).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "could not watch the command: {err}; the host is out of threads or memory, so stop background processes you no longer need and retry"
            ),
        )
    })?;

    let stdin_pipe = started.child.stdin.take();
    let stdout_pipe = started.child.stdout.take();
    let stderr_pipe = started.child.stderr.take();
    let mut stdout = Capture::new(cap).counting(options.output_lines.clone());
    let mut stderr = Capture::new(cap).counting(options.output_lines.clone());
    let mut exited = false;
    let mut drained = false;
    let mut stop: Option<Stop> = None;
    // A block, so the futures borrowing the captures end before the captures are read.
    {
        let feed = async {
            if let (Some(mut pipe), Some(data)) = (stdin_pipe, options.stdin) {
                // A command that does not read its input fails the write (EPIPE) when it exits.
                let _ = pipe.write_all(&data).await;
            }
        };
        let mut output = pin!(async {
            tokio::join!(
                feed,
                drain(stdout_pipe, &mut stdout),
                drain(stderr_pipe, &mut stderr)
            )
        });
        let mut exit = pin!(exit.exited());
        let cancel = options.cancel.unwrap_or_default();
        let mut cancelled = pin!(cancel.cancelled());
        let mut deadline = pin!(tokio::time::sleep(timeout));

        // Once the command is over (its leader exited, or the group was killed), the deadline
        // becomes a short grace period for reading what is left in the pipes.
        let mut grace = false;
        loop {
            tokio::select! {
                // Output first: on a loaded machine the task may wake with the pipes and the
                // grace timer both ready, and what the command printed must not lose that race.
                biased;
                _ = &mut output, if !drained => drained = true,
                _ = &mut exit, if !exited => {
                    exited = true;
                    group.finish();
                    if !grace {
                        grace = true;
                        deadline.as_mut().reset(Instant::now() + GRACE);
                    }
                }
                () = &mut deadline => {
                    if grace {
                        // A last read of what is already in the pipes, outside the task's
                        // cooperative budget (which may be spent): once every writer is gone
                        // it reaches the end at once, and only a process still holding a pipe
                        // leaves the output unfinished.
                        if !drained {
                            tokio::select! {
                                biased;
                                _ = tokio::task::unconstrained(&mut output) => drained = true,
                                () = std::future::ready(()) => {}
                            }
                        }
                        break;
                    }
                    stop = Some(Stop::TimedOut);
                    group.kill();
                    grace = true;
                    deadline.as_mut().reset(Instant::now() + GRACE);
                }
                () = &mut cancelled, if stop.is_none() && !exited => {
                    stop = Some(Stop::Cancelled);
                    group.kill();
                    grace = true;
                    deadline.as_mut().reset(Instant::now() + GRACE);
                }
            }
            if exited && drained {
                break;
            }
        }
    }
    if stop == Some(Stop::Cancelled) {
        return Err(ServiceError::new(
            ServiceErrorKind::Other,
            "the command was cancelled; it and every process it started were killed",
        ));
    }
    // Reaped only now that the group is finished; unreaped otherwise, and then the group is
    // killed again on drop and tokio reaps the child in the background.
    let status = if exited {
        started.child.try_wait().ok().flatten()
    } else {
        None
    };
    drop(started);

    let truncated = stdout.truncated() || stderr.truncated();
    let mut stderr = stderr.into_text();
    if let Some(notice) = status.and_then(|s| ending_notice(s, &resources))
        && stop.is_none()
    {
        append_notice(&mut stderr, &notice);
    }
    if !drained && stop.is_none() {
        append_notice(
            &mut stderr,
            "[stopped reading output: a process that left the command's process group still holds it open]",
        );
    }
    Ok(ShellResult {
        stdout: stdout.into_text(),
        stderr,
        exit_code: status.and_then(|s| s.code()),
        timed_out: stop == Some(Stop::TimedOut),
        truncated,
    })
}

/// What the output says about how a command ended, when a signal or a limit ended it.
fn ending_notice(
    status: std::process::ExitStatus,
    resources: &cy_tools::services::ResourceLimits,
) -> Option<String> {
    let xcpu = rustix::process::Signal::XCPU.as_raw();
    let (how, signal) = match (status.signal(), status.code()) {
        (Some(signal), _) => (format!("the command was killed by signal {signal}"), signal),
        // `sh -c` runs the command as its child and reports a child a signal killed as
        // 128 + the signal. Said as such: a program may also exit with that code itself.
        (None, Some(code)) if code > 128 && signal_name(code - 128).is_some() => (
            format!(
                "exit code {code} is how the shell reports a process killed by signal {}",
                code - 128
            ),
            code - 128,
        ),
        _ => return None,
    };
    let name = signal_name(signal).map_or(String::new(), |n| format!(" ({n})"));
    let why = match resources.cpu_time {
        Some(cpu) if signal == xcpu => format!(
            ": a process of it used up its CPU-time limit of {} s; make it do less work, or raise the limit",
            cpu.as_secs_f64().ceil()
        ),
        _ if signal == rustix::process::Signal::KILL.as_raw() => {
            ": something outside the command killed it, or the host ran out of memory".to_string()
        }
        _ => String::new(),
    };
    Some(format!("[{how}{name}{why}]"))
}

/// The name of the signals a command commonly dies of.
fn signal_name(signal: i32) -> Option<&'static str> {
    use rustix::process::Signal;
    [
        (Signal::HUP, "SIGHUP"),
        (Signal::INT, "SIGINT"),
        (Signal::QUIT, "SIGQUIT"),
        (Signal::ILL, "SIGILL"),
        (Signal::ABORT, "SIGABRT"),
        (Signal::BUS, "SIGBUS"),
        (Signal::FPE, "SIGFPE"),
        (Signal::KILL, "SIGKILL"),
        (Signal::SEGV, "SIGSEGV"),
        (Signal::PIPE, "SIGPIPE"),
        (Signal::ALARM, "SIGALRM"),
        (Signal::TERM, "SIGTERM"),
        (Signal::XCPU, "SIGXCPU"),
        (Signal::XFSZ, "SIGXFSZ"),
    ]
    .into_iter()
    .find(|(s, _)| s.as_raw() == signal)
    .map(|(_, name)| name)
}

fn append_notice(text: &mut String, notice: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(notice);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    TimedOut,
    Cancelled,
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;
    use std::time::Duration;

    use cy_tools::services::ResourceLimits;

    use super::ending_notice;

    fn cpu(secs: u64) -> ResourceLimits {
        ResourceLimits {
            cpu_time: Some(Duration::from_secs(secs)),
            ..ResourceLimits::NONE
        }
    }

    #[test]
    fn a_signal_or_the_shells_code_for_one_is_named() {
        // A wait status: the low 7 bits are the killing signal; an exit code sits above them.
        let killed = |signal: i32| ExitStatus::from_raw(signal);
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        assert_eq!(ending_notice(exited(0), &cpu(1)), None);
        assert_eq!(ending_notice(exited(3), &cpu(1)), None);
        assert_eq!(ending_notice(exited(200), &cpu(1)), None);
        assert_eq!(
            ending_notice(killed(24), &cpu(2)).unwrap(),
            "[the command was killed by signal 24 (SIGXCPU): a process of it used up its CPU-time limit of 2 s; make it do less work, or raise the limit]"
        );
        assert_eq!(
            ending_notice(exited(152), &cpu(2)).unwrap(),
            "[exit code 152 is how the shell reports a process killed by signal 24 (SIGXCPU): a process of it used up its CPU-time limit of 2 s; make it do less work, or raise the limit]"
        );
        assert_eq!(
            ending_notice(exited(152), &ResourceLimits::NONE).unwrap(),
            "[exit code 152 is how the shell reports a process killed by signal 24 (SIGXCPU)]"
        );
        assert_eq!(
            ending_notice(killed(11), &cpu(2)).unwrap(),
            "[the command was killed by signal 11 (SIGSEGV)]"
        );
        assert_eq!(
            ending_notice(killed(9), &cpu(2)).unwrap(),
            "[the command was killed by signal 9 (SIGKILL): something outside the command killed it, or the host ran out of memory]"
        );
        assert_eq!(
            ending_notice(killed(10), &cpu(2)).unwrap(),
            "[the command was killed by signal 10]"
        );
    }
}
