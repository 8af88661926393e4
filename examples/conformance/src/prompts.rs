//! The suite's prompts: plain text, typed arguments (with completion), an embedded resource and
//! an image.

use cy_tools::call::Content;
use cy_tools::catalog::{PromptMessage, Role, prompt};

use crate::content::PNG;

/// A prompt without arguments.
#[prompt(title = "Simple prompt")]
async fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments, the first completed from known values.
#[prompt(complete = known_values)]
async fn test_prompt_with_arguments(
    /// The first argument.
    arg1: String,
    /// The second argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// What `test_prompt_with_arguments` offers for `arg1`.
fn known_values(argument: &str, _typed: &str) -> Vec<String> {
    match argument {
        "arg1" => vec!["testValue1".to_string(), "testValue2".to_string()],
        _ => Vec::new(),
    }
}

/// A prompt carrying a resource's contents.
#[prompt]
async fn test_prompt_with_embedded_resource(
    /// The URI of the resource to embed.
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(
            Role::User,
            Content::embedded_text(
                resource_uri,
                "text/plain",
                "Embedded resource content for testing.",
            ),
        ),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt carrying an image.
#[prompt]
async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, Content::image(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}
