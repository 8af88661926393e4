//! Hand-written definitions the tests bind and call: no macro, so the runtime is tested on its own.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolResult, capability::capability_set, definition::ToolDefinition,
};
use serde::Deserialize;

/// Parameters of `add`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddParams {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

fn add<'a>(p: AddParams, _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move { ToolResult::text((p.a + p.b).to_string()) })
}

pub static ADD: ToolDefinition<AddParams> = ToolDefinition::new("add", "Adds two integers.", add);

/// Parameters of `read_text`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// Path relative to the workspace.
    pub path: String,
    /// Maximum bytes to return.
    pub limit: Option<u64>,
}

capability_set!(pub EnvCaps: env);

fn read_text<'a>(
    p: ReadParams,
    ctx: Ctx<'a, EnvCaps>,
    _: CallInfo<'a>,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        match ctx.env().read(&p.path).await {
            Ok(bytes) => {
                let limit = p
                    .limit
                    .map_or(bytes.len(), |l| (l as usize).min(bytes.len()));
                ToolResult::text(String::from_utf8_lossy(&bytes[..limit]))
            }
            Err(err) => ToolResult::error(err.to_string()),
        }
    })
}

pub static READ_TEXT: ToolDefinition<ReadParams, EnvCaps> =
    ToolDefinition::new("read_text", "Reads a text file.", read_text);

capability_set!(pub ChatCaps: chat, session);

/// Parameters of `say`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SayParams {
    /// What to say.
    pub text: String,
}

fn say<'a>(p: SayParams, ctx: Ctx<'a, ChatCaps>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        let message = cy_tools::services::ChatMessage {
            session_id: ctx.session().session_id.clone(),
            text: p.text,
        };
        match ctx.chat().send(message).await {
            Ok(()) => ToolResult::text("sent"),
            Err(err) => ToolResult::error(err.to_string()),
        }
    })
}

pub static SAY: ToolDefinition<SayParams, ChatCaps> =
    ToolDefinition::new("say", "Sends a chat message.", say);

fn ping<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async { ToolResult::text("pong") })
}

pub static PING: ToolDefinition<()> = ToolDefinition::new("ping", "Answers pong.", ping);

fn fail<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async {
        let r: Result<String, cy_tools::ToolError> = Err(cy_tools::ToolError::new(
            "the disk is full; free space and retry",
        ));
        cy_tools::call::IntoToolResult::into_tool_result(r)
    })
}

pub static FAIL: ToolDefinition<()> = ToolDefinition::new("fail", "Always fails.", fail);

fn boom<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async {
        tokio::task::yield_now().await;
        panic!("index out of range in boom");
    })
}

pub static BOOM: ToolDefinition<()> = ToolDefinition::new("boom", "Panics after a yield.", boom);

fn boom_sync<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    panic!("boom before the future");
}

pub static BOOM_SYNC: ToolDefinition<()> =
    ToolDefinition::new("boom_sync", "Panics before returning a future.", boom_sync);

/// Set when `sleepy`'s future is dropped, so tests see it was dropped promptly.
pub static SLEEPY_DROPPED: AtomicBool = AtomicBool::new(false);
/// Set when `sleepy` saw its per-call token cancelled.
pub static SLEEPY_TOKEN_CANCELLED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn sleepy<'a>(_: (), _: Ctx<'a>, call: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    let token = call.cancel.clone();
    tokio::spawn(async move {
        token.cancelled().await;
        SLEEPY_TOKEN_CANCELLED.store(true, Ordering::SeqCst);
    });
    Box::pin(async {
        let _guard = SetOnDrop(&SLEEPY_DROPPED);
        tokio::time::sleep(Duration::from_secs(3600)).await;
        ToolResult::text("woke")
    })
}

pub static SLEEPY: ToolDefinition<()> = ToolDefinition::new("sleepy", "Sleeps an hour.", sleepy)
    .with_timeout(Duration::from_millis(50));
