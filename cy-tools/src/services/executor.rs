//! `CodeExecutor`: runs the code `execute_code` is given, with its options and the
//! `ShellResult` it answers; `SdkCalls`: how code mode's calls reach the session.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::ServiceError;
use crate::BoxFuture;

/// The outcome of a command or of executed code.
///
/// ```
/// use cy_tools::services::ShellResult;
/// let ok = ShellResult { stdout: "42\n".into(), exit_code: Some(0), ..Default::default() };
/// assert!(ok.success());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellResult {
    /// Captured standard output (lossy UTF-8), possibly truncated.
    pub stdout: String,
    /// Captured standard error (lossy UTF-8), possibly truncated.
    pub stderr: String,
    /// Exit code; `None` when the process was killed by a signal or never finished.
    pub exit_code: Option<i32>,
    /// Whether the run was stopped at its timeout.
    pub timed_out: bool,
    /// Whether stdout or stderr was cut at its cap.
    pub truncated: bool,
}

impl ShellResult {
    /// Exit code zero, not timed out.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }
}

/// Answers the calls that code run in code mode makes back into its session (the `cy_sdk`
/// requests, without their token): `{"tool", "arguments"}` or `{"op": "tools"}`, answered
/// `{"ok": ...}` or `{"error": "..."}`. An executor that runs the code elsewhere relays each
/// request here, so the tools still run in the runtime, under its context.
pub trait SdkCalls: Send + Sync {
    /// Answers one request.
    fn call(&self, request: serde_json::Value) -> BoxFuture<'_, serde_json::Value>;

    /// The Python source of the typed module of the tools the code may call (`cy_sdk.tools`),
    /// which an executor running the code on another host sends along with it; `None` when
    /// there is none.
    fn python_module(&self) -> Option<std::sync::Arc<str>> {
        None
    }
}

/// Options for one [`CodeExecutor::execute`] call.
#[derive(Clone)]
pub struct CodeOptions {
    /// File the code is written to, relative to the workspace. `None` (the default): a fresh
    /// file of the executor's choosing, removed after the run, so runs at once never share
    /// one. Runs at once that name the same file take turns.
    pub filename: Option<String>,
    /// Wall-clock limit for the run.
    pub timeout: Option<Duration>,
    /// Cancels the run when triggered.
    pub cancel: CancellationToken,
    /// Variables added to the clean environment the code starts with. Executors that run the
    /// code on another host may ignore them.
    pub env: Vec<(String, String)>,
    /// Open descriptors the run inherits (code mode's SDK channel). Executors that run the
    /// code on another host cannot pass them and relay SDK calls instead.
    #[cfg(unix)]
    pub pass_fds: Vec<super::PassedFd>,
    /// Files and folders the run may read besides what its sandbox allows every command.
    pub read_only: Vec<std::path::PathBuf>,
    /// Folders the Python code imports modules from first (code mode's `cy_sdk`). An executor
    /// puts them on the code's `sys.path` whatever options its command runs Python with
    /// (isolated mode, `-I`, ignores `PYTHONPATH`), without moving the line numbers of the
    /// code's tracebacks. The local executor writes the short bootstrap that does this into
    /// the first of them, so the host must be able to write there. Executors that run the code
    /// on another host ignore them.
    pub python_path: Vec<std::path::PathBuf>,
    /// The id of the tool call that asked for this run, when there is one: calls the code makes
    /// back into the session are recorded under it.
    pub call_id: Option<String>,
    /// Where an executor that [relays SDK calls](CodeExecutor::relays_sdk_calls) sends them;
    /// `None` when code mode is off.
    pub sdk: Option<std::sync::Arc<dyn SdkCalls>>,
    /// Raised by the number of lines the code prints (stdout and stderr) as it prints them,
    /// for progress; executors that cannot watch the output leave it alone.
    pub output_lines: Option<super::ProgressCounter>,
    /// Who the calls the code makes back into the session (code mode) ask for approval: the
    /// `execute_code` call's own approver, so they ask the same person.
    pub approver: Option<std::sync::Arc<dyn crate::approval::Approver>>,
    /// Who those calls ask the caller's model and user through: the `execute_code` call's
    /// own asker, so a tool the code calls can ask as one the model called can.
    pub asker: Option<std::sync::Arc<dyn crate::call::Asker>>,
}

impl std::fmt::Debug for CodeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("CodeOptions");
        out.field("filename", &self.filename)
            .field("timeout", &self.timeout)
            .field("cancel", &self.cancel)
            .field("env", &self.env);
        #[cfg(unix)]
        out.field("pass_fds", &self.pass_fds);
        out.field("read_only", &self.read_only)
            .field("python_path", &self.python_path)
            .field("call_id", &self.call_id)
            .field("sdk", &self.sdk.is_some())
            .field("output_lines", &self.output_lines)
            .field("approver", &self.approver.is_some())
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

impl Default for CodeOptions {
    fn default() -> Self {
        CodeOptions {
            filename: None,
            timeout: None,
            cancel: CancellationToken::new(),
            env: Vec::new(),
            #[cfg(unix)]
            pass_fds: Vec::new(),
            read_only: Vec::new(),
            python_path: Vec::new(),
            call_id: None,
            sdk: None,
            output_lines: None,
            approver: None,
            asker: None,
        }
    }
}

/// Runs code the model wrote: locally in the sandbox, or on a remote sandbox host.
///
/// The `execute_code` tool knows only this trait; which backend a session gets is decided when
/// the session is built.
pub trait CodeExecutor: Send + Sync {
    /// Runs `code` and returns what it printed and how it ended.
    fn execute<'a>(
        &'a self,
        code: &'a str,
        options: CodeOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>>;

    /// Whether this executor runs the code on another host and relays its SDK calls to
    /// [`CodeOptions::sdk`] itself (code mode then opens no socket here). `false` by default.
    fn relays_sdk_calls(&self) -> bool {
        false
    }
}
