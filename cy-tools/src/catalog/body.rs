//! `TypedBody`: the typed half a resource and a prompt definition share with a tool's: the
//! function, its arguments' schema (made once per process) and how a call of it starts.

use std::marker::PhantomData;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::binding::BoundContext;
use crate::call::{ArgsError, CallInfo, args};
use crate::capability::{CapabilitySet, Ctx};
use crate::definition::Schema;
use crate::definition::typed::Checked;
use crate::definition::validate;

/// The function of a resource or a prompt: typed arguments, the narrowed context and per-call
/// data in, a boxed future of what it answers (`O`) out.
pub type Body<P, C, O> = for<'a> fn(P, Ctx<'a, C>, CallInfo<'a>) -> BoxFuture<'a, O>;

pub(crate) struct TypedBody<P, C: CapabilitySet, O> {
    body: Body<P, C, O>,
    checked: OnceLock<Result<Checked, String>>,
    _params: PhantomData<fn() -> P>,
}

impl<P, C: CapabilitySet, O> TypedBody<P, C, O> {
    pub(crate) const fn new(body: Body<P, C, O>) -> Self {
        TypedBody {
            body,
            checked: OnceLock::new(),
            _params: PhantomData,
        }
    }

    pub(crate) fn body(&self) -> Body<P, C, O> {
        self.body
    }
}

impl<P, C, O> TypedBody<P, C, O>
where
    P: DeserializeOwned + JsonSchema,
    C: CapabilitySet,
{
    /// The arguments' schema, or why `P` cannot be one.
    pub(crate) fn schema(&self) -> Result<&Schema, &str> {
        self.checked().map(|c| &c.schema)
    }

    fn checked(&self) -> Result<&Checked, &str> {
        self.checked
            .get_or_init(|| Checked::generate::<P>(false))
            .as_ref()
            .map_err(String::as_str)
    }

    /// Checks `args` (root fields already known to the schema; values may be the strings a
    /// URI or a prompt's caller sends, see [`from_strings`]) and starts the function.
    pub(crate) fn start<'a>(
        &'a self,
        context: BoundContext<'a>,
        args: Map<String, Value>,
        call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, O>, ArgsError> {
        let checked = self.checked().map_err(str::to_string)?;
        let args = Value::Object(from_strings(args, &checked.schema));
        if let Some(validator) = &checked.validator {
            validate::check(validator, &args)?;
        }
        let params = args::deserialize::<P>(args)?;
        Ok((self.body)(
            params,
            Ctx::<C>::assume_checked(context.get()),
            call,
        ))
    }
}

/// URI variables and prompt arguments arrive as strings, whatever the function's types: a
/// string given for a field whose schema does not take strings (a number, a flag, a list) is
/// read as the JSON it spells, so `{id}` can be a `u64`. One that does not parse stays a
/// string, for the type check to name.
pub(crate) fn from_strings(mut args: Map<String, Value>, schema: &Schema) -> Map<String, Value> {
    let properties = schema.value().get("properties").and_then(Value::as_object);
    for (name, value) in &mut args {
        let Value::String(text) = value else {
            continue;
        };
        let Some(property) = properties.and_then(|p| p.get(name)) else {
            continue;
        };
        if takes_strings(property) {
            continue;
        }
        if let Ok(parsed) = serde_json::from_str::<Value>(text) {
            *value = parsed;
        }
    }
    args
}

/// Whether a property's schema takes a string: its `type` names `string`, or it says nothing
/// of types (a `$ref`, `anyOf`, no `type`), where the string is left for serde to judge.
fn takes_strings(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::String(ty)) => ty == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => property.get("enum").is_some() || property.get("type").is_none(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::from_strings;
    use crate::definition::schema;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        id: u64,
        name: String,
        flag: Option<bool>,
    }

    #[test]
    fn strings_become_the_types_the_schema_names() {
        let schema = schema::generate::<Args>().unwrap();
        let args = json!({"id": "42", "name": "007", "flag": "true"});
        let Value::Object(map) = args else {
            unreachable!()
        };
        let got = from_strings(map, &schema);
        assert_eq!(
            serde_json::Value::Object(got),
            json!({"id": 42, "name": "007", "flag": true})
        );
    }

    use serde_json::Value;
}
