//! `workflow`: several subagent tasks, in sequence or in parallel, with their results collected.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::Poll;

use cy_tools::prelude::*;
use cy_tools::services::{ChildOutcome, ChildRequest, ChildSessionFactory, ServiceError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use super::delegate::UNAVAILABLE;

/// Tasks one call may run at most.
pub const MAX_TASKS: usize = 32;
/// The highest `max_concurrency` accepted.
pub const MAX_CONCURRENCY: u32 = 16;
/// Subagents run at once when the call sets no `max_concurrency`.
pub const DEFAULT_CONCURRENCY: u32 = 4;

/// One task of a workflow.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowTask {
    /// The subagent profile to run it with.
    pub agent: String,
    /// The task, complete in itself.
    pub task: String,
}

/// How the tasks run. `Serialize` so the schema declares its default: a strict converter
/// makes `mode` required, and the default is then the value that means "left out".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
#[allow(missing_docs)]
pub enum WorkflowMode {
    Sequence,
    #[default]
    Parallel,
}

/// The arguments of `workflow`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowArgs {
    /// The tasks, each for one subagent (1 to 32).
    pub tasks: Vec<WorkflowTask>,
    /// `parallel` (default) runs them at once, up to `max_concurrency`; `sequence` runs them
    /// in order and stops at the first failure.
    #[serde(default)]
    pub mode: WorkflowMode,
    /// How many subagents run at once in `parallel` mode (1 to 16, default 4).
    pub max_concurrency: Option<u32>,
}

/// Run several tasks, each in its own subagent session, and get every answer back, labelled
/// by task. Use `parallel` for independent tasks and `sequence` when order matters; each
/// subagent sees only its own `task`.
#[tool(
    title = "Run a workflow",
    capabilities(factory),
    open_world,
    destructive
)]
pub async fn workflow(
    factory: &dyn ChildSessionFactory,
    call: CallInfo,
    #[args] args: WorkflowArgs,
) -> ToolResult {
    if args.tasks.is_empty() || args.tasks.len() > MAX_TASKS {
        return ToolResult::error(format!(
            "`tasks` has {} entries; give 1 to {MAX_TASKS} tasks (split a longer list over several calls)",
            args.tasks.len()
        ));
    }
    if let Some(n) = args.tasks.iter().position(|t| t.task.trim().is_empty()) {
        return ToolResult::error(format!(
            "`tasks[{n}].task` is empty; describe the work for that subagent"
        ));
    }
    let concurrency = args.max_concurrency.unwrap_or(DEFAULT_CONCURRENCY);
    if concurrency == 0 || concurrency > MAX_CONCURRENCY {
        return ToolResult::error(format!(
            "`max_concurrency` is {concurrency}; use 1 to {MAX_CONCURRENCY}"
        ));
    }
    let run = |task| run_task(factory, call, task);
    let outcomes: Vec<Option<Result<ChildOutcome, ServiceError>>> = match args.mode {
        WorkflowMode::Sequence => {
            let mut outcomes = Vec::with_capacity(args.tasks.len());
            let mut failed = false;
            for task in &args.tasks {
                if failed {
                    outcomes.push(None);
                    continue;
                }
                let outcome = run(task).await;
                failed = outcome.is_err();
                outcomes.push(Some(outcome));
            }
            outcomes
        }
        WorkflowMode::Parallel => {
            let gate = Semaphore::new(concurrency as usize);
            let gate = &gate;
            let runs = args.tasks.iter().map(|task| {
                let started = run(task);
                async move {
                    let _permit = gate.acquire().await;
                    Some(started.await)
                }
            });
            join_all(runs.collect()).await
        }
    };
    report(&args, concurrency, &outcomes)
}

/// Starts one task in a subagent.
fn run_task<'a>(
    factory: &'a dyn ChildSessionFactory,
    call: CallInfo<'a>,
    task: &'a WorkflowTask,
) -> cy_tools::BoxFuture<'a, Result<ChildOutcome, ServiceError>> {
    let request = ChildRequest {
        profile: task.agent.clone(),
        workspace: None,
        parent_call: Some(call.id.to_string()),
    };
    factory.run_child(request, &task.task, call.cancel)
}

/// Every answer, labelled; an error result when any task failed or did not run.
fn report(
    args: &WorkflowArgs,
    concurrency: u32,
    outcomes: &[Option<Result<ChildOutcome, ServiceError>>],
) -> ToolResult {
    let finished = outcomes.iter().filter(|o| matches!(o, Some(Ok(_)))).count();
    let how = match args.mode {
        WorkflowMode::Sequence => "in sequence".to_string(),
        WorkflowMode::Parallel => format!("in parallel, at most {concurrency} at a time"),
    };
    let mut text = format!("{finished} of {} tasks finished ({how})", args.tasks.len());
    for (n, (task, outcome)) in args.tasks.iter().zip(outcomes).enumerate() {
        let n = n + 1;
        let agent = &task.agent;
        match outcome {
            Some(Ok(outcome)) => text.push_str(&format!(
                "\n\n## task {n}: `{agent}` (session `{}`) answered\n{}",
                outcome.session_id, outcome.answer
            )),
            Some(Err(err)) => {
                text.push_str(&format!("\n\n## task {n}: `{agent}` failed\n{err}"));
            }
            None => text.push_str(&format!(
                "\n\n## task {n}: `{agent}` was not run, because an earlier task failed"
            )),
        }
    }
    if finished == outcomes.len() {
        ToolResult::text(text)
    } else {
        ToolResult::error(text)
    }
}

/// Polls every future until all are done; results in the order given.
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// Run several tasks in subagent sessions. Not available in this session: no agent loop for
/// subagents is wired in, so a call only answers that; do the work yourself.
#[tool(name = "workflow", register = false, read_only, open_world = false)]
pub async fn workflow_unavailable(#[args] _args: WorkflowArgs) -> ToolResult {
    ToolResult::error(UNAVAILABLE)
}
