//! `Hooks`: a session's hooks in order, and how a call goes through them.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::call_hook::{After, Before, CallHook, HookCall};
use crate::approval::hook::{ApprovalHook, ApprovalStep};
use crate::binding::SessionIdentity;
use crate::call::{ToolResult, args};
use crate::definition::Schema;

/// How long one hook may take to decide, unless the host says otherwise.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// A session's hooks, in the order they run, and how long each may take. Cloning shares them.
///
/// The built-in approval hook (see [`approval`](crate::approval)) is one of them: it runs after
/// the host's hooks unless [`with_approval`](Hooks::with_approval) placed it elsewhere, and only
/// asks about calls that need it.
#[derive(Clone)]
pub struct Hooks {
    list: Option<Arc<[Entry]>>,
    timeout: Duration,
}

/// One hook of the chain, and how long it may take.
#[derive(Clone)]
struct Entry {
    hook: Arc<dyn CallHook>,
    limit: Limit,
}

/// How long one hook may take to decide.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Limit {
    /// The hooks' timeout.
    Shared,
    /// Its own.
    Own(Duration),
    /// Unbounded here: the approval hook, bounded by the approval settings' own timeout.
    Approval,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            list: None,
            timeout: DEFAULT_HOOK_TIMEOUT,
        }
    }
}

impl Hooks {
    /// The same hooks and `hook` after them.
    #[must_use]
    pub fn with(self, hook: Arc<dyn CallHook>) -> Self {
        self.push(Entry {
            hook,
            limit: Limit::Shared,
        })
    }

    /// The same hooks and `hook` after them, given `timeout` to decide instead of the hooks'
    /// timeout (a host's configuration may give each hook its own).
    ///
    /// ```
    /// use std::{sync::Arc, time::Duration};
    /// use cy_tools::call::hook::{CallHook, Hooks};
    /// struct Scan;
    /// impl CallHook for Scan { fn name(&self) -> &str { "virus scan" } }
    /// let hooks = Hooks::default().with_timed(Arc::new(Scan), Duration::from_secs(120));
    /// assert_eq!(hooks.names(), ["virus scan"]);
    /// ```
    #[must_use]
    pub fn with_timed(self, hook: Arc<dyn CallHook>, timeout: Duration) -> Self {
        self.push(Entry {
            hook,
            limit: Limit::Own(timeout),
        })
    }

    /// The same hooks and the built-in approval hook after them, here rather than after every
    /// hook (its default place). Placed once: a second call moves it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use cy_tools::call::hook::{CallHook, Hooks};
    /// struct Audit;
    /// impl CallHook for Audit { fn name(&self) -> &str { "audit" } }
    /// // A person is asked before the audit hook sees the call.
    /// let hooks = Hooks::default().with_approval().with(Arc::new(Audit));
    /// assert_eq!(hooks.names(), ["approval", "audit"]);
    /// ```
    #[must_use]
    pub fn with_approval(self) -> Self {
        let moved = Hooks {
            list: Some(
                self.entries()
                    .filter(|e| e.limit != Limit::Approval)
                    .cloned()
                    .collect(),
            ),
            timeout: self.timeout,
        };
        moved.push(Entry {
            hook: Arc::new(ApprovalHook),
            limit: Limit::Approval,
        })
    }

    fn push(self, entry: Entry) -> Self {
        let mut list: Vec<Entry> = self.entries().cloned().collect();
        list.push(entry);
        Hooks {
            list: Some(list.into()),
            timeout: self.timeout,
        }
    }

    /// The same hooks, each given `timeout` to decide (then the call is refused).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long each hook may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The hooks, in order (the approval hook among them when it was placed).
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn CallHook>> {
        self.entries().map(|e| &e.hook)
    }

    /// Their names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.iter().map(|h| h.name()).collect()
    }

    /// Whether there are none (then a call that needs no approval pays one branch for them).
    pub fn is_empty(&self) -> bool {
        self.list.is_none()
    }

    fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.list.iter().flat_map(|list| list.iter())
    }

    /// The hooks a call goes through: the host's, with approval where it was placed, else last
    /// when the call needs it.
    fn sequence(&self, approval: bool) -> impl Iterator<Item = (&dyn CallHook, Option<Duration>)> {
        let placed = self.entries().any(|e| e.limit == Limit::Approval);
        let last = (approval && !placed).then_some((&ApprovalHook as &dyn CallHook, None));
        self.entries()
            .map(|e| {
                let limit = match e.limit {
                    Limit::Shared => Some(self.timeout),
                    Limit::Own(own) => Some(own),
                    Limit::Approval => None,
                };
                (e.hook.as_ref(), limit)
            })
            .chain(last)
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("names", &self.names())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// A call, as the hooks see it.
pub(crate) struct Seen<'a> {
    pub(crate) session: &'a SessionIdentity,
    pub(crate) tool: &'a str,
    pub(crate) call_id: &'a str,
    pub(crate) schema: &'a Schema,
    /// Present when the call needs approval: the approval hook asks then.
    pub(crate) approval: Option<&'a ApprovalStep<'a>>,
}

/// Runs the hooks before a call: the arguments it runs with, or the answer refusing it.
pub(crate) async fn before(
    hooks: &Hooks,
    seen: &Seen<'_>,
    mut arguments: Map<String, Value>,
) -> Result<Map<String, Value>, ToolResult> {
    let tool = seen.tool;
    for (hook, limit) in hooks.sequence(seen.approval.is_some()) {
        let name = hook.name();
        let view = HookCall {
            session: seen.session,
            tool,
            call_id: seen.call_id,
            arguments: &arguments,
            approval: seen.approval,
        };
        let decided = bounded_by(limit, hook.before(&view)).await;
        match decided {
            Err(_) => {
                let after = limit.unwrap_or(hooks.timeout);
                return Err(timed_out(tool, name, after, "did not run"));
            }
            Ok(Err(err)) => {
                return Err(ToolResult::error(format!(
                    "`{tool}` was refused: hook `{name}` failed ({err}), so the call did not run; this is the host's hook, not your arguments"
                )));
            }
            Ok(Ok(Before::Pass)) => {}
            Ok(Ok(Before::Answer(result))) => return Err(result),
            Ok(Ok(Before::Refuse(message))) => {
                return Err(ToolResult::error(format!(
                    "`{tool}` was refused by hook `{name}`: {message}"
                )));
            }
            Ok(Ok(Before::Rewrite(rewritten))) => {
                if let Err(problem) = args::check_fields(&rewritten, seen.schema) {
                    return Err(ToolResult::error(format!(
                        "`{tool}` was refused: hook `{name}` rewrote its arguments into ones the tool does not take ({problem}), so the call did not run"
                    )));
                }
                arguments = rewritten;
            }
        }
    }
    Ok(arguments)
}

/// Runs the hooks after a call: the result the caller gets.
pub(crate) async fn after(
    hooks: &Hooks,
    seen: &Seen<'_>,
    arguments: &Map<String, Value>,
    mut result: ToolResult,
) -> ToolResult {
    let tool = seen.tool;
    for (hook, limit) in hooks.sequence(seen.approval.is_some()) {
        let name = hook.name();
        let view = HookCall {
            session: seen.session,
            tool,
            call_id: seen.call_id,
            arguments,
            approval: seen.approval,
        };
        let decided = bounded_by(limit, hook.after(&view, &result)).await;
        match decided {
            Err(_) => {
                let after = limit.unwrap_or(hooks.timeout);
                return timed_out(tool, name, after, "ran, but its result is withheld");
            }
            Ok(Err(err)) => {
                return ToolResult::error(format!(
                    "`{tool}` ran, but its result is withheld: hook `{name}` failed ({err}); this is the host's hook, not your arguments"
                ));
            }
            Ok(Ok(After::Keep)) => {}
            Ok(Ok(After::Replace(replaced))) => result = replaced,
        }
    }
    result
}

/// `decide` within `limit`, or unbounded (the approval hook, bounded by its own settings).
async fn bounded_by<T>(
    limit: Option<Duration>,
    decide: impl Future<Output = T>,
) -> Result<T, tokio::time::error::Elapsed> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, decide).await,
        None => Ok(decide.await),
    }
}

fn timed_out(tool: &str, hook: &str, after: Duration, what: &str) -> ToolResult {
    ToolResult::error(format!(
        "`{tool}` {what}: hook `{hook}` did not decide within {}; the host's hook is too slow or stuck",
        crate::binding::format_duration(after)
    ))
}
