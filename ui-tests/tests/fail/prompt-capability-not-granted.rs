use cy_tools::prelude::*;
use cy_tools::services::Chat;

/// A prompt that asks for the chat in its signature without declaring it.
#[prompt]
async fn from_chat(chat: &dyn Chat) -> String {
    let _ = chat;
    String::new()
}

/// A prompt whose body touches the chat without declaring it.
#[prompt(capabilities(session))]
async fn tell_chat(ctx: Ctx<'_>) -> String {
    let _ = ctx.chat();
    String::new()
}

fn main() {}
