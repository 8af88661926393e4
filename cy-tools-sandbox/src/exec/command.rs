//! Starting a shell command the sandbox way: `/bin/sh -c`, a clean environment, its own
//! process group, piped output.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Stdio;

use cy_tools::services::{PassedFd, ResourceLimits, ServiceError, ServiceErrorKind};
use tokio::process::{Child, Command};

use super::cgroup::ViewCgroup;
use super::group::ProcessGroup;
use super::resources::confine;
use crate::isolation::{self, ChildSetup, Confinements};
use crate::{ExecLimits, Isolation};

/// The shell every command runs under.
pub(crate) const SHELL: &str = "/bin/sh";

/// A started command: its group, the child (stdout and stderr piped, stdin piped or null) and
/// its pid.
pub(crate) struct Started {
    /// Declared before `child` so it drops first: the group is killed while the leader is
    /// still unreaped (dropping a tokio `Child` may reap it on the spot).
    pub(crate) group: ProcessGroup,
    pub(crate) child: Child,
    pub(crate) pid: u32,
}

/// What a command starts with besides its text.
pub(crate) struct Launch<'a> {
    pub(crate) cwd: &'a Path,
    pub(crate) home: &'a Path,
    pub(crate) env: &'a [(String, String)],
    pub(crate) limits: &'a ExecLimits,
    /// CPU, memory and process caps, set by the shell before the command runs.
    pub(crate) resources: &'a ResourceLimits,
    pub(crate) stdin: bool,
    /// Open descriptors the command alone inherits, each announced in its variable.
    pub(crate) pass_fds: &'a [PassedFd],
    /// What the command may read besides what the limits allow every command.
    pub(crate) read_only: &'a [std::path::PathBuf],
    /// The view's confinements, one of which the command enters.
    pub(crate) confinements: &'a Confinements,
    /// The view's cgroup, under which the command gets its own.
    pub(crate) cgroup: &'a ViewCgroup,
}

/// Starts `command` with `/bin/sh -c` in a new process group.
///
/// The environment is built from nothing: `PATH` and `LANG` from the limits, `HOME` the
/// view's folder, `TMPDIR` its private temporary folder when it is confined, then the caller's
/// variables. Nothing of the host's environment (tokens, keys, proxies) reaches the command.
/// The new process joins the command's pids cgroup and enters its isolation (see
/// [`isolation`]) before the shell starts; the shell sets the resource limits before the
/// command's first word runs.
///
/// # Errors
/// The command or a variable contains a NUL byte, or the shell cannot be started.
pub(crate) fn start(command: &str, launch: &Launch<'_>) -> Result<Started, ServiceError> {
    if command.contains('\0') {
        return Err(ServiceError::new(
            ServiceErrorKind::InvalidInput,
            "the command contains a NUL byte; remove it",
        ));
    }
    for (key, value) in launch.env {
        if key.is_empty() || key.contains(['=', '\0']) || value.contains('\0') {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "environment variable `{}` is not valid: a name is non-empty without `=` or NUL, a value has no NUL",
                    key.escape_debug()
                ),
            ));
        }
    }
    let confinement = confine(launch.resources, launch.cgroup);
    let isolated = launch.confinements.for_command(launch.read_only)?;
    let tmp = isolated.as_ref().map(|i| i.tmp_path().to_path_buf());
    let cgroup_procs = match &confinement.cgroup {
        Some(cgroup) => cgroup
            .procs_files()
            .map(|file| isolation::cgroup_procs(&file))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let confined = isolated.is_some();
    // Absolute: the child enters it again from the root of the view it joins.
    let cwd = std::path::absolute(launch.cwd).unwrap_or_else(|_| launch.cwd.to_path_buf());
    let cwd = CString::new(cwd.as_os_str().as_bytes()).map_err(|_| {
        ServiceError::new(
            ServiceErrorKind::InvalidInput,
            "the working folder contains a NUL byte; use another",
        )
    })?;
    let mut cmd = Command::new(SHELL);
    cmd.arg("-c")
        .arg(format!("{}{command}", confinement.prefix))
        .current_dir(launch.cwd)
        .env_clear()
        .env("PATH", &launch.limits.path)
        .env("HOME", launch.home)
        .env("LANG", &launch.limits.lang)
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .envs(
            launch
                .pass_fds
                .iter()
                .map(|p| (p.var().to_string(), p.raw().to_string())),
        )
        .envs(tmp.iter().map(|tmp| ("TMPDIR", tmp)))
        .stdin(if launch.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    isolation::install(
        &mut cmd,
        ChildSetup {
            inherit: launch.pass_fds.iter().map(PassedFd::raw).collect(),
            cgroup_procs,
            confine: isolated,
            cwd,
        },
    );
    let child = cmd.spawn().map_err(|err| {
        spawn_error(
            launch.cwd,
            &err,
            confined.then_some(launch.limits.isolation),
        )
    })?;
    let Some(pid) = child.id() else {
        return Err(ServiceError::new(
            ServiceErrorKind::Other,
            "the command exited before it could be tracked; run it again",
        ));
    };
    Ok(Started {
        group: ProcessGroup::new(pid, confinement.cgroup),
        child,
        pid,
    })
}

fn spawn_error(cwd: &Path, err: &io::Error, isolation: Option<Isolation>) -> ServiceError {
    let cwd = cwd.display();
    if let Some(isolation) = isolation
        && err.kind() != io::ErrorKind::NotFound
    {
        // The pre-exec step that failed cannot say which it was without allocating; what it
        // did is the same list every time.
        return ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "could not start the command confined (isolation `{isolation}`: joining its cgroup and its read-only view's namespaces, dropping privileges, Landlock and seccomp failed with: {err}); this host may forbid one of them (a container's seccomp profile, say): allow them, or run with `--isolation none` if the commands are trusted"
            ),
        );
    }
    match err.kind() {
        io::ErrorKind::NotFound => ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "could not start `{SHELL}`: {err}; the host needs a POSIX shell at `{SHELL}`, or the working folder `{cwd}` was removed"
            ),
        ),
        io::ErrorKind::PermissionDenied => ServiceError::new(
            ServiceErrorKind::PermissionDenied,
            format!(
                "could not start `{SHELL}` in `{cwd}`: {err}; the shell must be executable and the folder readable by this host process"
            ),
        ),
        _ if err.raw_os_error() == Some(rustix::io::Errno::AGAIN.raw_os_error())
            || err.raw_os_error() == Some(rustix::io::Errno::NOMEM.raw_os_error()) =>
        {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "could not start the command: {err}; the host is out of processes or memory, so stop background processes you no longer need and retry"
                ),
            )
        }
        _ => ServiceError::new(
            ServiceErrorKind::Other,
            format!("could not start the command with `{SHELL}` in `{cwd}`: {err}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_failures_name_the_problem_and_the_fix() {
        let cwd = Path::new("/ws/sub");
        let err = spawn_error(cwd, &io::Error::from(io::ErrorKind::NotFound), None);
        assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
        assert_eq!(
            err.to_string(),
            "could not start `/bin/sh`: entity not found; the host needs a POSIX shell at `/bin/sh`, or the working folder `/ws/sub` was removed"
        );
        let err = spawn_error(cwd, &io::Error::from(io::ErrorKind::PermissionDenied), None);
        assert_eq!(err.kind(), ServiceErrorKind::PermissionDenied);
        assert_eq!(
            err.to_string(),
            "could not start `/bin/sh` in `/ws/sub`: permission denied; the shell must be executable and the folder readable by this host process"
        );
        let again = io::Error::from_raw_os_error(rustix::io::Errno::AGAIN.raw_os_error());
        let err = spawn_error(cwd, &again, None);
        assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
        assert!(
            err.to_string().ends_with(
                "; the host is out of processes or memory, so stop background processes you no longer need and retry"
            ),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_folder_removed_before_the_start_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let launch = Launch {
            cwd: &gone,
            home: dir.path(),
            env: &[],
            limits: &ExecLimits::default(),
            resources: &ResourceLimits::NONE,
            stdin: false,
            pass_fds: &[],
            read_only: &[],
            confinements: &Confinements::new(&ExecLimits::default(), dir.path()),
            cgroup: &ViewCgroup::new(None),
        };
        let err = start("true", &launch).err().unwrap();
        assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
        assert!(
            err.to_string()
                .starts_with("could not start `/bin/sh`: No such file or directory"),
            "{err}"
        );
    }
}
