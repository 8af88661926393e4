//! One session of the load test: built by the factory, with code mode on top.

use std::sync::Arc;

use cy_tools::Session;
use cy_tools::{CancellationToken, ToolCall, ToolResult};
use cy_tools_code_mode::CodeModeExecutor;
use cy_tools_sandbox::executor::LocalExecutor;
use cy_tools_session::LocalSessionFactory;

use super::workload::Kind;

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
