//! A long-lived process a session talks to over its standard input and output (a local MCP
//! server), started confined like `terminal`'s commands.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cy_tools::services::{ResourceLimits, ServiceError};
use tokio::io::AsyncReadExt as _;
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::exec::command::{self, Launch, Started};
use crate::exec::group::ProcessGroup;
use crate::isolation::Confinements;
use crate::{Isolation, SandboxView};

/// The most memory a server process may hold by default: 2 GiB of data (heap and private
/// writable mappings), room for a Node.js or Python server.
pub const DEFAULT_SERVER_MEMORY: u64 = 2 * 1024 * 1024 * 1024;

/// The most processes and threads a server may have alive at once by default.
pub const DEFAULT_SERVER_PROCESSES: u32 = 256;

/// How many of the last bytes a server wrote to stderr are kept, for the messages that say
/// why it failed.
const STDERR_TAIL: usize = 4096;

/// How a server process is started besides its command line.
///
/// ```
/// use cy_tools_sandbox::ServerOptions;
/// let options = ServerOptions::default();
/// assert!(!options.network);
/// assert_eq!(options.resources.cpu_time, None, "a long-lived server has no CPU seconds cap");
/// ```
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Variables added to the clean environment it starts with.
    pub env: Vec<(String, String)>,
    /// Files and folders it may read (and run) besides the view's: its installation (an npm
    /// package folder, a virtual environment).
    pub read_only: Vec<PathBuf>,
    /// Whether it may open network sockets (the view's isolation decides otherwise).
    pub network: bool,
    /// Its caps: memory and processes, no CPU seconds (it lives as long as its session).
    pub resources: ResourceLimits,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            env: Vec::new(),
            read_only: Vec::new(),
            network: false,
            resources: ResourceLimits {
                cpu_time: None,
                memory: Some(DEFAULT_SERVER_MEMORY),
                processes: Some(DEFAULT_SERVER_PROCESSES),
            },
        }
    }
}

/// A started server: its standard input and output for the protocol, the last of what it
/// wrote to stderr, and its process group, killed (every process of it) when this is dropped.
pub struct ServerProcess {
    /// Declared first so it drops first: the group is killed while the leader is unreaped.
    group: ProcessGroup,
    child: Child,
    pid: u32,
    stdio: Option<(ChildStdin, ChildStdout)>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    /// The task draining stderr, which ends when every process holding it has exited.
    drain: Option<tokio::task::JoinHandle<()>>,
}

impl ServerProcess {
    /// Its standard input and output, once.
    pub fn take_stdio(&mut self) -> Option<(ChildStdin, ChildStdout)> {
        self.stdio.take()
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The last few kilobytes it wrote to stderr, as text.
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let (a, b) = tail.as_slices();
        let mut bytes = a.to_vec();
        bytes.extend_from_slice(b);
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    /// The tail of stderr once the server is done writing it (it exited), waiting at most
    /// `within` for that: what a server that failed to start said, whole.
    pub async fn final_stderr(&mut self, within: std::time::Duration) -> String {
        if let Some(drain) = self.drain.take() {
            let _ = tokio::time::timeout(within, drain).await;
        }
        self.stderr_tail()
    }

    /// Whether it has exited (then it is reaped).
    pub fn exited(&mut self) -> bool {
        match self.child.try_wait() {
            Ok(Some(_)) => {
                self.group.finish();
                true
            }
            Ok(None) => false,
            Err(_) => true,
        }
    }

    /// Kills it and every process it started.
    pub fn kill(&self) {
        self.group.kill();
    }
}

impl std::fmt::Debug for ServerProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerProcess")
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

impl SandboxView {
    /// Starts `command` (with `/bin/sh -c`, in the view's folder) as a long-lived server the
    /// caller talks to over its stdin and stdout: confined like the view's commands (its
    /// folder read-write, a private temporary folder, the system folders and
    /// `options.read_only` read-only, no network unless `options.network` and the view's
    /// isolation allows some, no signals to other processes), under `options.resources`, and
    /// killed with its group when the returned process is dropped. Its stderr is drained and
    /// its tail kept ([`ServerProcess::stderr_tail`]).
    ///
    /// # Errors
    /// The command contains a NUL byte, the kernel cannot confine it (naming
    /// `--isolation none`), or the shell cannot be started.
    pub fn start_server(
        &self,
        command: &str,
        options: &ServerOptions,
    ) -> Result<ServerProcess, ServiceError> {
        let (view_confinements, cgroup) = self.confinements();
        let mut limits = self.limits().clone();
        // A server allowed the network gets its own confinements with sockets; a view
        // without isolation stays without.
        let own;
        let confinements = if options.network && limits.isolation == Isolation::Strict {
            limits.isolation = Isolation::Network;
            own = Confinements::new(&limits, self.host_path());
            &own
        } else {
            view_confinements
        };
        let launch = Launch {
            cwd: self.host_path(),
            home: self.host_path(),
            env: &options.env,
            limits: &limits,
            resources: &options.resources,
            stdin: true,
            pass_fds: &[],
            read_only: &options.read_only,
            confinements,
            cgroup,
        };
        let Started {
            group,
            mut child,
            pid,
        } = command::start(command, &launch)?;
        let stdio = child.stdin.take().zip(child.stdout.take());
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let drain = child.stderr.take().map(|mut pipe| {
            let tail = Arc::clone(&stderr);
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                    tail.extend(&buf[..n]);
                    let over = tail.len().saturating_sub(STDERR_TAIL);
                    tail.drain(..over);
                }
            })
        });
        Ok(ServerProcess {
            group,
            child,
            pid,
            stdio,
            stderr,
            drain,
        })
    }
}
