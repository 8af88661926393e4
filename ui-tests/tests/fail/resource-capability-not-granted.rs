use cy_tools::prelude::*;

/// The chat's last words, as a resource that forgot to declare `chat`.
#[resource(uri = "chat://last", capabilities(env))]
async fn last_words(ctx: Ctx<'_>) -> String {
    let _chat = ctx.chat();
    String::new()
}

fn main() {}
