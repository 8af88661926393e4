//! The tools only this application's own binary, `cy-tools-app`, adds to show a tool asking
//! in the middle of its call: the caller's model (`ask_model`) and its user (`ask_user`, a form
//! with defaults and enums). Behind the `app` feature, as `app.rs` is.

use cy_tools::call::{ElicitField, ElicitForm, Elicited, SampleMessage, SampleRequest};
use cy_tools::prelude::*;

/// Ask the caller's model a question and answer what it said, and which model said it.
#[tool(read_only, open_world = false)]
pub async fn ask_model(
    call: CallInfo<'_>,
    /// The question.
    question: String,
) -> Result<String, ToolError> {
    let request = SampleRequest::new(vec![SampleMessage::user(question)], 20)
        .with_system_prompt("Answer in one word.");
    let answer = call.sample(request).await?;
    Ok(format!("{} said: {}", answer.model, answer.text()))
}

/// Ask the user to confirm an order's details, and answer what they did.
#[tool(read_only, open_world = false)]
pub async fn ask_user(
    call: CallInfo<'_>,
    /// What to tell the user.
    message: String,
) -> Result<String, ToolError> {
    let form = ElicitForm::new()
        .field(
            "name",
            ElicitField::string()
                .title("Name")
                .default_value("Ada")
                .required(),
        )
        .field(
            "plan",
            ElicitField::one_of_titled([("free", "Free"), ("pro", "Professional")])
                .default_value("free"),
        )
        .field(
            "seats",
            ElicitField::integer()
                .title("Seats")
                .range(1, 100)
                .default_value(1),
        )
        .field("newsletter", ElicitField::boolean().default_value(false));
    Ok(match call.elicit(&message, &form).await? {
        Elicited::Accept(values) => format!("accepted: {}", serde_json::Value::Object(values)),
        Elicited::Decline => "declined".to_string(),
        Elicited::Cancel => "cancelled".to_string(),
    })
}
