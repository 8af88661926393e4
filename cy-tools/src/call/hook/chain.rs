//! `Hooks`: a session's hooks in order, and how a call goes through them.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::call_hook::{After, Before, CallHook, HookCall};
use crate::binding::SessionIdentity;
use crate::call::{ToolResult, args};
use crate::definition::Schema;

/// How long one hook may take to decide, unless the host says otherwise.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// A session's hooks, in the order they run, and how long each may take. Cloning shares them.
#[derive(Clone)]
pub struct Hooks {
    list: Option<Arc<[Arc<dyn CallHook>]>>,
    timeout: Duration,
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
        let mut list: Vec<Arc<dyn CallHook>> = self.iter().cloned().collect();
        list.push(hook);
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

    /// The hooks, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn CallHook>> {
        self.list.iter().flat_map(|list| list.iter())
    }

    /// Whether there are none (then a call pays one branch for them).
    pub fn is_empty(&self) -> bool {
        self.list.is_none()
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("names", &self.iter().map(|h| h.name()).collect::<Vec<_>>())
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
}

/// Runs the hooks before a call: the arguments it runs with, or the answer refusing it.
pub(crate) async fn before(
    hooks: &Hooks,
    seen: &Seen<'_>,
    mut arguments: Map<String, Value>,
) -> Result<Map<String, Value>, ToolResult> {
    let tool = seen.tool;
    for hook in hooks.iter() {
        let name = hook.name();
        let view = HookCall {
            session: seen.session,
            tool,
            call_id: seen.call_id,
            arguments: &arguments,
        };
        let decided = tokio::time::timeout(hooks.timeout, hook.before(&view)).await;
        match decided {
            Err(_) => return Err(timed_out(tool, name, hooks.timeout, "did not run")),
            Ok(Err(err)) => {
                return Err(ToolResult::error(format!(
                    "`{tool}` was refused: hook `{name}` failed ({err}), so the call did not run; this is the host's hook, not your arguments"
                )));
            }
            Ok(Ok(Before::Pass)) => {}
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
    for hook in hooks.iter() {
        let name = hook.name();
        let view = HookCall {
            session: seen.session,
            tool,
            call_id: seen.call_id,
            arguments,
        };
        let decided = tokio::time::timeout(hooks.timeout, hook.after(&view, &result)).await;
        match decided {
            Err(_) => {
                return timed_out(tool, name, hooks.timeout, "ran, but its result is withheld");
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

fn timed_out(tool: &str, hook: &str, after: Duration, what: &str) -> ToolResult {
    ToolResult::error(format!(
        "`{tool}` {what}: hook `{hook}` did not decide within {}; the host's hook is too slow or stuck",
        crate::binding::bound::format_duration(after)
    ))
}
