//! Session services safe to fuzz: the real sandbox for files, and refusals or instant fakes for
//! everything that would run a command, start a child or wait.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cy_tools::memory::MemoryCoordinator;
use cy_tools::{
    BoxFuture, CancellationToken, Session,
    services::{
        Chat, ChatMessage, ChildOutcome, ChildRequest, ChildSessionFactory, CodeExecutor,
        CodeOptions, Coordinator, DirEntryInfo, ExecOptions, ExecutionLog, LogEntry, ProcessInfo,
        ProcessOutput, ProcessTable, Sandbox, SearchOptions, SearchResult, ServiceError,
        ServiceErrorKind, ShellResult, WalkOptions, WalkResult,
    },
};

fn refused(what: &str) -> ServiceError {
    ServiceError::new(
        ServiceErrorKind::PermissionDenied,
        format!("{what} is switched off while fuzzing"),
    )
}

/// A sandbox that passes every file operation to the real one and refuses to run anything:
/// `exec` and starting a background process fail; the process table's other operations go
/// to the real table (which never has a process, so they answer "no such process").
pub struct NoExecSandbox {
    inner: Arc<dyn Sandbox>,
    table: NoStartTable,
}

impl NoExecSandbox {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Sandbox>) -> Self {
        NoExecSandbox {
            table: NoStartTable(Arc::clone(&inner)),
            inner,
        }
    }
}

impl Sandbox for NoExecSandbox {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn resolve_path(&self, path: &str) -> Result<std::path::PathBuf, ServiceError> {
        self.inner.resolve_path(path)
    }

    fn read<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        self.inner.read(path)
    }

    fn read_range<'a>(
        &'a self,
        path: &'a str,
        offset: u64,
        max_len: usize,
    ) -> BoxFuture<'a, Result<Vec<u8>, ServiceError>> {
        self.inner.read_range(path, offset, max_len)
    }

    fn write<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        self.inner.write(path, contents)
    }

    fn write_scratch<'a>(
        &'a self,
        path: &'a str,
        contents: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        self.inner.write_scratch(path, contents)
    }

    fn stat<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<DirEntryInfo, ServiceError>> {
        self.inner.stat(path)
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<DirEntryInfo>, ServiceError>> {
        self.inner.list_dir(path)
    }

    fn walk<'a>(
        &'a self,
        path: &'a str,
        options: WalkOptions,
    ) -> BoxFuture<'a, Result<WalkResult, ServiceError>> {
        self.inner.walk(path, options)
    }

    fn search<'a>(
        &'a self,
        path: &'a str,
        options: SearchOptions,
    ) -> BoxFuture<'a, Result<SearchResult, ServiceError>> {
        self.inner.search(path, options)
    }

    fn exec<'a>(
        &'a self,
        _command: &'a str,
        _options: ExecOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(async { Err(refused("running commands")) })
    }

    fn scoped(&self, subdir: &str) -> Result<Arc<dyn Sandbox>, ServiceError> {
        Ok(Arc::new(NoExecSandbox::new(self.inner.scoped(subdir)?)))
    }

    fn processes(&self) -> Result<&dyn ProcessTable, ServiceError> {
        Ok(&self.table)
    }
}

/// The real process table of a sandbox, minus `start`.
struct NoStartTable(Arc<dyn Sandbox>);

impl ProcessTable for NoStartTable {
    fn start<'a>(
        &'a self,
        _command: &'a str,
        _options: ExecOptions,
    ) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(async { Err(refused("starting background processes")) })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        match self.0.processes() {
            Ok(table) => table.status(id),
            Err(err) => Box::pin(async { Err(err) }),
        }
    }

    fn output<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessOutput, ServiceError>> {
        match self.0.processes() {
            Ok(table) => table.output(id),
            Err(err) => Box::pin(async { Err(err) }),
        }
    }

    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        match self.0.processes() {
            Ok(table) => table.write_stdin(id, data),
            Err(err) => Box::pin(async { Err(err) }),
        }
    }

    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        match self.0.processes() {
            Ok(table) => table.kill(id),
            Err(err) => Box::pin(async { Err(err) }),
        }
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessInfo>, ServiceError>> {
        match self.0.processes() {
            Ok(table) => table.list(),
            Err(err) => Box::pin(async { Err(err) }),
        }
    }
}

/// A code executor that runs nothing.
pub struct RefusingExecutor;

impl CodeExecutor for RefusingExecutor {
    fn execute<'a>(
        &'a self,
        _code: &'a str,
        _options: CodeOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(async { Err(refused("running code")) })
    }
}

/// A session factory whose children answer at once without existing: profile `researcher`
/// echoes the task, profile `failing` fails, any other profile is unknown.
pub struct InstantFactory;

impl ChildSessionFactory for InstantFactory {
    fn remaining_depth(&self) -> u32 {
        1
    }

    fn profiles(&self) -> Vec<String> {
        vec!["researcher".to_string(), "failing".to_string()]
    }

    fn spawn_child(&self, _request: ChildRequest) -> BoxFuture<'_, Result<Session, ServiceError>> {
        Box::pin(async { Err(refused("building child sessions")) })
    }

    fn run_child<'a>(
        &'a self,
        request: ChildRequest,
        task: &'a str,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<ChildOutcome, ServiceError>> {
        Box::pin(async move {
            match request.profile.as_str() {
                "researcher" => Ok(ChildOutcome {
                    session_id: "fuzz.researcher-1".to_string(),
                    answer: format!("done: {task}"),
                }),
                "failing" => Err(ServiceError::new(
                    ServiceErrorKind::Other,
                    "the subagent failed",
                )),
                other => Err(ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("no subagent profile `{other}`"),
                )),
            }
        })
    }
}

/// The in-memory coordinator, fresh for each input, with every wait cut to zero so
/// `wait_for_signal` answers at once (with a queued signal or "none arrived").
#[derive(Default)]
pub struct InstantCoordinator {
    inner: Mutex<Arc<MemoryCoordinator>>,
}

impl InstantCoordinator {
    /// Forgets every queued signal.
    pub fn reset(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = Arc::default();
    }

    fn current(&self) -> Arc<MemoryCoordinator> {
        Arc::clone(&self.inner.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Coordinator for InstantCoordinator {
    fn signal<'a>(
        &'a self,
        to: &'a str,
        name: &'a str,
        payload: serde_json::Value,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        let inner = self.current();
        Box::pin(async move { inner.signal(to, name, payload).await })
    }

    fn wait<'a>(
        &'a self,
        session: &'a str,
        name: &'a str,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<serde_json::Value>, ServiceError>> {
        let inner = self.current();
        Box::pin(async move { inner.wait(session, name, Duration::ZERO).await })
    }
}

/// A chat that accepts every message and keeps none.
pub struct NullChat;

impl Chat for NullChat {
    fn send(&self, _message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(async { Ok(()) })
    }
}

/// An execution log that keeps nothing.
pub struct NullLog;

impl ExecutionLog for NullLog {
    fn record(&self, _entry: LogEntry) -> BoxFuture<'_, Result<(), ServiceError>> {
        Box::pin(async { Ok(()) })
    }

    fn entries<'a>(
        &'a self,
        _session_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<LogEntry>, ServiceError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
