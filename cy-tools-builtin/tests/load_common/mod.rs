//! What the load test is made of: its scale (from the environment), one session with code mode
//! on top, the figures, and what the process holds (descriptors, children).

#![allow(dead_code)]

pub mod checks;
pub mod workload;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::{CancellationToken, ToolCall, ToolResult};
use cy_tools_builtin::LocalExecutor;
use cy_tools_builtin::code_mode::CodeModeExecutor;
use cy_tools_builtin::session::{LocalSessionFactory, Session};

use workload::Kind;

/// The scale of a run, from `CY_LOAD_*` variables.
#[derive(Clone, Debug)]
pub struct Config {
    /// `CY_LOAD_SESSIONS`: sessions live at once (default 40).
    pub sessions: usize,
    /// `CY_LOAD_CALLS`: calls per session (default 20).
    pub calls: usize,
    /// `CY_LOAD_PROCS`: Python runs in flight at once, over all sessions; `None` (the default,
    /// or 0) leaves them unbounded.
    pub procs: Option<usize>,
    /// `CY_LOAD_DEADLINE_S`: every call must be answered within this (default 300 s plus 1 s
    /// per session).
    pub deadline: Duration,
}

impl Config {
    pub fn from_env() -> Self {
        let var = |name: &str| -> Option<usize> {
            let text = std::env::var(name).ok()?;
            Some(
                text.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("`{name}` is `{text}`, not a whole number")),
            )
        };
        let sessions = var("CY_LOAD_SESSIONS").unwrap_or(40);
        let calls = var("CY_LOAD_CALLS").unwrap_or(20);
        assert!(
            sessions > 0 && calls > 0,
            "CY_LOAD_SESSIONS and CY_LOAD_CALLS must be above 0"
        );
        let deadline = var("CY_LOAD_DEADLINE_S").unwrap_or(300 + sessions);
        Config {
            sessions,
            calls,
            procs: var("CY_LOAD_PROCS").filter(|n| *n > 0),
            deadline: Duration::from_secs(deadline as u64),
        }
    }
}

/// A session built by the factory (SQLite store, Python executor), plus code mode on top: a
/// second `execute_code` whose runs call back into the session's own toolset, recorded in the
/// session's own log under the `execute_code` call.
pub struct LoadSession {
    pub session: Session,
    /// The same session with a code-mode `execute_code`, its runs' calls going to `bound`.
    code_mode: Session,
    /// What the code calls back into: the session itself, held here because the code-mode
    /// executor holds it only weakly.
    _bound: Arc<Session>,
}

impl LoadSession {
    /// Adds code mode to `session`.
    ///
    /// # Errors
    /// The executor cannot be bound.
    pub fn new(factory: &LocalSessionFactory, session: Session) -> Result<Self, String> {
        let env = session.env().ok_or("the session has no workspace")?;
        let executor = Arc::new(CodeModeExecutor::new(Arc::new(LocalExecutor::new(
            Arc::clone(env),
        ))));
        let context = Arc::new(
            (**session.context())
                .clone()
                .with_executor(executor.clone()),
        );
        // Nested calls go to the session's own tools; the runs come through this toolset.
        let code_mode = factory.registry().build(&["execute_code"], &context);
        let bound = Arc::new(session.clone());
        executor.bind(&bound).map_err(|err| err.to_string())?;
        Ok(LoadSession {
            session,
            code_mode: Session::new(context, code_mode),
            _bound: bound,
        })
    }

    /// One call, recorded: code mode through its own `execute_code`, the rest through the
    /// session.
    pub async fn execute(&self, kind: Kind, tool: &str, call: ToolCall) -> ToolResult {
        let cancel = CancellationToken::new();
        if kind == Kind::CodeMode {
            return self.code_mode.execute(tool, call, &cancel).await;
        }
        self.session.execute(tool, call, &cancel).await
    }
}

/// Latency samples by kind.
#[derive(Default)]
pub struct Samples {
    pub by_kind: BTreeMap<Kind, Vec<Duration>>,
}

impl Samples {
    pub fn add(&mut self, kind: Kind, took: Duration) {
        self.by_kind.entry(kind).or_default().push(took);
    }

    pub fn merge(&mut self, other: Samples) {
        for (kind, mut samples) in other.by_kind {
            self.by_kind.entry(kind).or_default().append(&mut samples);
        }
    }

    pub fn all(&self) -> Vec<Duration> {
        self.by_kind.values().flatten().copied().collect()
    }
}

/// `count  p50  p99  max` in milliseconds, by nearest rank.
pub fn summary(samples: &[Duration]) -> String {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    let rank = |p: f64| -> Duration {
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        let n = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[n - 1]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!(
        "{:>7} {:>10.2} {:>10.2} {:>10.2}",
        sorted.len(),
        ms(rank(0.50)),
        ms(rank(0.99)),
        ms(sorted.last().copied().unwrap_or_default())
    )
}

/// How many descriptors this process has open.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// The processes whose parent is this one (pid and command), zombies included.
pub fn children() -> Vec<(u32, String)> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`: the command may hold spaces, so split after `)`.
            let (head, tail) = stat.rsplit_once(')')?;
            let ppid: u32 = tail.split_whitespace().nth(1)?.parse().ok()?;
            let comm = head.split_once('(')?.1.to_string();
            (ppid == me).then_some((pid, comm))
        })
        .collect()
}

/// How many threads this process runs.
pub fn threads() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The machine's load averages (1, 5, 15 min).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Every file under `root`, as relative path (with `/`) to contents.
pub fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                let text = std::fs::read(&path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|err| format!("<unreadable: {err}>"));
                out.insert(relative.to_string_lossy().into_owned(), text);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}
