//! A scripted runner: a fake model that issues a fixed sequence of tool calls, for the
//! subagents of the session tests.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cy_tools::{
    BoxFuture, ToolCall,
    services::{ServiceError, ServiceErrorKind},
};
use cy_tools_session::{SubagentRun, SubagentRunner};
use serde_json::Value;

/// One step of a script: call `tool` with `arguments`.
#[derive(Clone, Debug)]
pub struct Step {
    pub tool: &'static str,
    pub arguments: Value,
}

pub fn step(tool: &'static str, arguments: Value) -> Step {
    Step { tool, arguments }
}

/// A fake model: for a task, it issues the calls of the script registered under that task's
/// text, in order, through the child session (so each is recorded), and answers with every
/// result, one line per call: `tool: [error] text`.
#[derive(Default)]
pub struct ScriptedRunner {
    scripts: Mutex<HashMap<String, Vec<Step>>>,
    /// Pauses each run this long after its calls, to make overlap observable.
    pub hold: Duration,
    running: AtomicUsize,
    /// The most runs seen at once.
    pub peak: AtomicUsize,
    /// Every (session id, task) run, in start order.
    pub runs: Mutex<Vec<(String, String)>>,
}

impl ScriptedRunner {
    pub fn new() -> Self {
        ScriptedRunner::default()
    }

    pub fn holding(hold: Duration) -> Self {
        ScriptedRunner {
            hold,
            ..ScriptedRunner::default()
        }
    }

    /// Registers the script for `task`.
    pub fn script(&self, task: &str, steps: Vec<Step>) {
        self.scripts.lock().unwrap().insert(task.to_string(), steps);
    }
}

impl SubagentRunner for ScriptedRunner {
    fn run<'a>(&'a self, run: SubagentRun<'a>) -> BoxFuture<'a, Result<String, ServiceError>> {
        Box::pin(async move {
            let steps = self.scripts.lock().unwrap().get(run.task).cloned();
            let Some(steps) = steps else {
                return Err(ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("the scripted model has no script for task `{}`", run.task),
                ));
            };
            if steps.len() > run.profile.limits.max_turns as usize {
                return Err(ServiceError::new(
                    ServiceErrorKind::Other,
                    format!(
                        "the script needs {} turns, more than the profile's {}",
                        steps.len(),
                        run.profile.limits.max_turns
                    ),
                ));
            }
            self.runs
                .lock()
                .unwrap()
                .push((run.session.id().to_string(), run.task.to_string()));
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(now, Ordering::SeqCst);
            let mut lines = Vec::new();
            for (n, step) in steps.iter().enumerate() {
                let call = ToolCall::new(format!("t{}", n + 1), step.arguments.clone());
                let result = run.session.execute(step.tool, call, run.cancel).await;
                let flag = if result.is_error { "[error] " } else { "" };
                lines.push(format!("{}: {flag}{}", step.tool, result.text_content()));
            }
            if !self.hold.is_zero() {
                tokio::time::sleep(self.hold).await;
            }
            self.running.fetch_sub(1, Ordering::SeqCst);
            Ok(lines.join("\n"))
        })
    }
}

pub fn shared<R: SubagentRunner + 'static>(runner: R) -> (Arc<R>, Arc<dyn SubagentRunner>) {
    let runner = Arc::new(runner);
    let dynamic: Arc<dyn SubagentRunner> = runner.clone();
    (runner, dynamic)
}
