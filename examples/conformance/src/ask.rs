//! Tools that ask in the middle of a call: the client's model (sampling) and its user
//! (elicitation, with defaults and every kind of enum). They need a connection that carries
//! server-to-client requests: stdio, or the session-bearing HTTP mode.

use cy_tools::call::{ElicitField, ElicitForm, Elicited, SampleMessage, SampleRequest};
use cy_tools::prelude::*;

/// Asks the client's model to answer a prompt, and answers what it said.
#[tool(read_only)]
async fn test_sampling(
    call: CallInfo<'_>,
    /// What to ask the model.
    prompt: String,
) -> Result<String, ToolError> {
    let answer = call
        .sample(SampleRequest::new(vec![SampleMessage::user(prompt)], 100))
        .await?;
    Ok(format!("LLM response: {}", answer.text()))
}

/// Asks the user for a name and an email address, and answers what they did.
#[tool(read_only)]
async fn test_elicitation(
    call: CallInfo<'_>,
    /// What to tell the user.
    message: String,
) -> Result<String, ToolError> {
    let form = ElicitForm::new()
        .field(
            "username",
            ElicitField::string().title("User name").required(),
        )
        .field(
            "email",
            ElicitField::string()
                .title("Email")
                .format("email")
                .required(),
        );
    Ok(said(call.elicit(&message, &form).await?))
}

/// Asks the user a form whose every field has a default.
#[tool(read_only)]
async fn test_elicitation_sep1034_defaults(call: CallInfo<'_>) -> Result<String, ToolError> {
    let form = ElicitForm::new()
        .field(
            "name",
            ElicitField::string()
                .title("Name")
                .default_value("John Doe"),
        )
        .field("age", ElicitField::integer().title("Age").default_value(30))
        .field(
            "score",
            ElicitField::number().title("Score").default_value(95.5),
        )
        .field(
            "status",
            ElicitField::one_of(["active", "inactive", "pending"])
                .title("Status")
                .default_value("active"),
        )
        .field(
            "verified",
            ElicitField::boolean().title("Verified").default_value(true),
        );
    Ok(said(
        call.elicit("Please review your details", &form).await?,
    ))
}

/// Asks the user a form of every kind of enum: untitled and titled, single and multiple, and
/// the older `enumNames`.
#[tool(read_only)]
async fn test_elicitation_sep1330_enums(call: CallInfo<'_>) -> Result<String, ToolError> {
    let form = ElicitForm::new()
        .field(
            "untitledSingle",
            ElicitField::one_of(["option1", "option2", "option3"]),
        )
        .field(
            "titledSingle",
            ElicitField::one_of_titled([
                ("value1", "First Option"),
                ("value2", "Second Option"),
                ("value3", "Third Option"),
            ]),
        )
        .field(
            "legacyEnum",
            ElicitField::one_of(["opt1", "opt2", "opt3"]).enum_names([
                "Option One",
                "Option Two",
                "Option Three",
            ]),
        )
        .field(
            "untitledMulti",
            ElicitField::any_of(["option1", "option2", "option3"]),
        )
        .field(
            "titledMulti",
            ElicitField::any_of_titled([
                ("value1", "First Choice"),
                ("value2", "Second Choice"),
                ("value3", "Third Choice"),
            ]),
        );
    Ok(said(call.elicit("Pick some options", &form).await?))
}

/// What the user did, as the tool's answer.
fn said(answer: Elicited) -> String {
    match answer {
        Elicited::Accept(values) => {
            format!(
                "User response: accepted {}",
                serde_json::Value::Object(values)
            )
        }
        Elicited::Decline => "User response: declined".to_string(),
        Elicited::Cancel => "User response: cancelled".to_string(),
    }
}
