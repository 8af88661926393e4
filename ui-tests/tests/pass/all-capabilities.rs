//! Every capability, through `Ctx` and as context fields taken directly.

use cy_tools::definition::Definition;
use cy_tools::prelude::*;
use cy_tools::{
    capability::{Capabilities, CapabilitySet},
    services::{Chat, ChildSessionFactory, CodeExecutor, Coordinator, ExecutionLog, Sandbox},
};

/// Touch everything.
#[tool(capabilities(env, execute_code, session, factory, log, coordinator, chat))]
async fn everything(
    ctx: Ctx<'_>,
    env: &dyn Sandbox,
    executor: &dyn CodeExecutor,
    session: &SessionIdentity,
    factory: &dyn ChildSessionFactory,
    log: &dyn ExecutionLog,
    coordinator: &dyn Coordinator,
    chat: &dyn Chat,
) -> String {
    let _ = (
        ctx.env(),
        ctx.execute_code(),
        ctx.factory(),
        ctx.log(),
        ctx.coordinator(),
        ctx.chat(),
    );
    let _ = (env, executor, factory, log, coordinator, chat);
    format!("{} {}", ctx.session().session_id, session.depth)
}

fn main() {
    assert_eq!(EverythingCaps::CAPABILITIES, Capabilities::ALL);
    assert_eq!(
        EVERYTHING.capabilities().to_string(),
        "env, execute_code, session, factory, log, coordinator, chat"
    );
}
