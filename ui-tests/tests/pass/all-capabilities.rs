//! Every capability, through `Ctx` and as context fields taken directly.

use cy_tools::prelude::*;
use cy_tools::definition::Definition;
use cy_tools::{CapabilitySet, Capabilities, Chat, CodeExecutor, Coordinator, ExecutionLog, Sandbox, SessionFactory};

/// Touch everything.
#[tool(capabilities(env, execute_code, session, factory, store, coordinator, chat))]
async fn everything(
    ctx: Ctx<'_>,
    env: &dyn Sandbox,
    executor: &dyn CodeExecutor,
    session: &SessionIdentity,
    factory: &dyn SessionFactory,
    store: &dyn ExecutionLog,
    coordinator: &dyn Coordinator,
    chat: &dyn Chat,
) -> String {
    let _ = (ctx.env(), ctx.execute_code(), ctx.factory(), ctx.store(), ctx.coordinator(), ctx.chat());
    let _ = (env, executor, factory, store, coordinator, chat);
    format!("{} {}", ctx.session().session_id, session.depth)
}

fn main() {
    assert_eq!(EverythingCaps::CAPABILITIES, Capabilities::ALL);
    assert_eq!(
        EVERYTHING.capabilities().to_string(),
        "env, execute_code, session, factory, store, coordinator, chat"
    );
}
