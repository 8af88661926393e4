//! Asking from inside a call: the caller's model (`sample`) and its user (`elicit`), through
//! whoever hosts the call ([`Asker`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::Content;
use crate::BoxFuture;
use crate::catalog::Role;

/// One message of a conversation a tool has the caller's model continue.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleMessage {
    /// Who says it.
    pub role: Role,
    /// What is said: text, an image or audio.
    pub content: Content,
}

impl SampleMessage {
    /// The user saying `text`.
    pub fn user(text: impl Into<String>) -> Self {
        SampleMessage {
            role: Role::User,
            content: Content::text(text),
        }
    }

    /// The assistant saying `text`.
    pub fn assistant(text: impl Into<String>) -> Self {
        SampleMessage {
            role: Role::Assistant,
            content: Content::text(text),
        }
    }
}

/// What a tool asks the caller's model: a conversation to continue, with a token budget.
///
/// ```
/// use cy_tools::call::{SampleMessage, SampleRequest};
/// let request = SampleRequest::new(vec![SampleMessage::user("Name a colour.")], 50)
///     .with_system_prompt("Answer in one word.");
/// assert_eq!(request.max_tokens, 50);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SampleRequest {
    /// The conversation so far.
    pub messages: Vec<SampleMessage>,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
    /// A system prompt for this request.
    pub system_prompt: Option<String>,
    /// How random the answer may be, 0 to 1.
    pub temperature: Option<f32>,
    /// Where the answer stops.
    pub stop_sequences: Vec<String>,
}

impl SampleRequest {
    /// A request to continue `messages` in at most `max_tokens` tokens.
    pub fn new(messages: Vec<SampleMessage>, max_tokens: u32) -> Self {
        SampleRequest {
            messages,
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
        }
    }

    /// The same request with a system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The same request at `temperature`.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }
}

/// What the caller's model answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled {
    /// Who said it (the assistant, normally).
    pub role: Role,
    /// What it said.
    pub content: Content,
    /// The model that answered, as its host names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, ...), when the host says.
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// The answer's text (empty for an answer that is not text).
    pub fn text(&self) -> &str {
        match &self.content {
            Content::Text { text } => text,
            _ => "",
        }
    }
}

/// The form a tool asks its user to fill: a flat object of strings, numbers, booleans and
/// enums, each with a title, a description and a default as MCP's elicitation allows.
///
/// ```
/// use cy_tools::call::{ElicitField, ElicitForm};
/// let form = ElicitForm::new()
///     .field("name", ElicitField::string().title("Your name").required())
///     .field("age", ElicitField::integer().range(0, 150).default_value(30))
///     .field("plan", ElicitField::one_of(["free", "pro"]).default_value("free"));
/// let schema = form.schema();
/// assert_eq!(schema["required"], serde_json::json!(["name"]));
/// assert_eq!(schema["properties"]["plan"]["enum"], serde_json::json!(["free", "pro"]));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ElicitForm {
    fields: Vec<(String, ElicitField)>,
}

/// One field of an [`ElicitForm`].
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitField {
    schema: Map<String, Value>,
    required: bool,
}

impl ElicitField {
    fn of(ty: &str) -> Self {
        let mut schema = Map::new();
        schema.insert("type".to_string(), Value::from(ty));
        ElicitField {
            schema,
            required: false,
        }
    }

    /// Text.
    pub fn string() -> Self {
        ElicitField::of("string")
    }

    /// A whole number.
    pub fn integer() -> Self {
        ElicitField::of("integer")
    }

    /// A number.
    pub fn number() -> Self {
        ElicitField::of("number")
    }

    /// Yes or no.
    pub fn boolean() -> Self {
        ElicitField::of("boolean")
    }

    /// One of `values`.
    pub fn one_of<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut field = ElicitField::string();
        let values: Vec<Value> = values
            .into_iter()
            .map(|v| Value::String(v.into()))
            .collect();
        field
            .schema
            .insert("enum".to_string(), Value::Array(values));
        field
    }

    /// One of `values`, each shown with its title (`[(value, title)]`).
    pub fn one_of_titled<V: Into<String>, T: Into<String>>(
        values: impl IntoIterator<Item = (V, T)>,
    ) -> Self {
        let mut field = ElicitField::string();
        let options: Vec<Value> = values
            .into_iter()
            .map(|(value, title)| {
                serde_json::json!({ "const": value.into(), "title": title.into() })
            })
            .collect();
        field
            .schema
            .insert("oneOf".to_string(), Value::Array(options));
        field
    }

    /// Any of `values` (several may be picked).
    pub fn any_of<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut field = ElicitField::of("array");
        let values: Vec<Value> = values
            .into_iter()
            .map(|v| Value::String(v.into()))
            .collect();
        field.schema.insert(
            "items".to_string(),
            serde_json::json!({ "type": "string", "enum": values }),
        );
        field
    }

    /// Any of `values`, each shown with its title (`[(value, title)]`).
    pub fn any_of_titled<V: Into<String>, T: Into<String>>(
        values: impl IntoIterator<Item = (V, T)>,
    ) -> Self {
        let mut field = ElicitField::of("array");
        let options: Vec<Value> = values
            .into_iter()
            .map(|(value, title)| {
                serde_json::json!({ "const": value.into(), "title": title.into() })
            })
            .collect();
        field
            .schema
            .insert("items".to_string(), serde_json::json!({ "anyOf": options }));
        field
    }

    /// The titles of a [`one_of`](Self::one_of)'s values, in their order, the older way
    /// (`enumNames`), for clients that know no other.
    #[must_use]
    pub fn enum_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<Value> = names.into_iter().map(|n| Value::String(n.into())).collect();
        self.schema
            .insert("enumNames".to_string(), Value::Array(names));
        self
    }

    /// Shown as `title`.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.schema
            .insert("title".to_string(), Value::String(title.into()));
        self
    }

    /// Explained by `description`.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.schema
            .insert("description".to_string(), Value::String(description.into()));
        self
    }

    /// Filled with `value` until the user changes it.
    #[must_use]
    pub fn default_value(mut self, value: impl Into<Value>) -> Self {
        self.schema.insert("default".to_string(), value.into());
        self
    }

    /// Between `min` and `max` (a number's value, a string's length).
    #[must_use]
    pub fn range(mut self, min: i64, max: i64) -> Self {
        let (low, high) = match self.schema.get("type").and_then(Value::as_str) {
            Some("string") => ("minLength", "maxLength"),
            _ => ("minimum", "maximum"),
        };
        self.schema.insert(low.to_string(), Value::from(min));
        self.schema.insert(high.to_string(), Value::from(max));
        self
    }

    /// A string of this format (`email`, `uri`, `date`, `date-time`).
    #[must_use]
    pub fn format(mut self, format: impl Into<String>) -> Self {
        self.schema
            .insert("format".to_string(), Value::String(format.into()));
        self
    }

    /// Must be filled.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }
}

impl ElicitForm {
    /// An empty form (a yes-or-no question: accept or decline).
    pub fn new() -> Self {
        ElicitForm::default()
    }

    /// The same form with the field `name` (a later field of the same name replaces it).
    #[must_use]
    pub fn field(mut self, name: impl Into<String>, field: ElicitField) -> Self {
        let name = name.into();
        self.fields.retain(|(n, _)| *n != name);
        self.fields.push((name, field));
        self
    }

    /// The form a `requestedSchema` describes (a flat object of fields), as another MCP server
    /// sent it, for a host that passes the question on.
    ///
    /// ```
    /// use cy_tools::call::ElicitForm;
    /// let schema = serde_json::json!({"type": "object",
    ///     "properties": {"name": {"type": "string"}}, "required": ["name"]});
    /// assert_eq!(ElicitForm::from_schema(&schema).unwrap().schema(), schema);
    /// assert!(ElicitForm::from_schema(&serde_json::json!({"type": "array"})).is_err());
    /// ```
    ///
    /// # Errors
    /// It is not an object schema whose `properties` are objects.
    pub fn from_schema(schema: &Value) -> Result<ElicitForm, AskError> {
        let properties = match (schema.get("type"), schema.get("properties")) {
            (Some(Value::String(t)), Some(Value::Object(p))) if t == "object" => p,
            (Some(Value::String(t)), None) if t == "object" => return Ok(ElicitForm::new()),
            _ => {
                return Err(AskError::new(
                    "the form's schema is not an object schema with `properties`; a form is a flat object of fields",
                ));
            }
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut form = ElicitForm::new();
        for (name, field) in properties {
            let Value::Object(field) = field else {
                return Err(AskError::new(format!(
                    "the form's field `{name}` is not a schema object"
                )));
            };
            form.fields.push((
                name.clone(),
                ElicitField {
                    schema: field.clone(),
                    required: required.contains(&name.as_str()),
                },
            ));
        }
        Ok(form)
    }

    /// The form as MCP's `requestedSchema`.
    pub fn schema(&self) -> Value {
        let properties: Map<String, Value> = self
            .fields
            .iter()
            .map(|(name, field)| (name.clone(), Value::Object(field.schema.clone())))
            .collect();
        let required: Vec<Value> = self
            .fields
            .iter()
            .filter(|(_, f)| f.required)
            .map(|(name, _)| Value::String(name.clone()))
            .collect();
        let mut schema = serde_json::json!({ "type": "object", "properties": properties });
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        schema
    }
}

/// What the user did with a form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "lowercase")]
pub enum Elicited {
    /// Filled it in and sent it: the values by field name.
    Accept(Map<String, Value>),
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

impl Elicited {
    /// The values, read as `T` (a struct of the form's fields), when the user accepted.
    ///
    /// # Errors
    /// The user declined or cancelled (`Ok(None)` is not used: each is an error naming it), or
    /// the values do not fit `T`.
    pub fn accepted<T: serde::de::DeserializeOwned>(self) -> Result<T, AskError> {
        match self {
            Elicited::Accept(values) => serde_json::from_value(Value::Object(values))
                .map_err(|err| AskError::new(format!("the user's answer does not fit: {err}"))),
            Elicited::Decline => Err(AskError::new("the user declined")),
            Elicited::Cancel => Err(AskError::new("the user dismissed the question")),
        }
    }
}

/// Why a question could not be asked or answered: no way to ask (the host has none, or the
/// client does not offer it), or the host's error. The message says what would work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskError {
    message: String,
}

impl AskError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        AskError {
            message: message.into(),
        }
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AskError {}

/// Whoever hosts a call and can ask on its behalf: an MCP server asks its client (its model by
/// `sampling/createMessage`, its user by `elicitation/create`); a host without a way answers
/// an [`AskError`] saying so.
pub trait Asker: Send + Sync {
    /// Has the caller's model continue `request`.
    fn sample<'a>(&'a self, request: &'a SampleRequest)
    -> BoxFuture<'a, Result<Sampled, AskError>>;

    /// Asks the user `message`, with `form` to fill.
    fn elicit<'a>(
        &'a self,
        message: &'a str,
        form: &'a ElicitForm,
    ) -> BoxFuture<'a, Result<Elicited, AskError>>;
}

/// What a call without an asker answers.
pub(crate) const NO_ASKER: &str = "nobody can be asked from this call: its host (a direct call, or one that does not ask its caller) has no way to reach a model or a person; run the tool from an MCP client that offers sampling and elicitation";
