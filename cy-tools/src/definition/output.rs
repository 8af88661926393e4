//! What a tool returning [`Json<T>`](crate::Json) declares: the schema of `T` as MCP's
//! `outputSchema`, wrapped as `{"result": …}` when `T` is not an object.

use schemars::JsonSchema;
use serde_json::{Value, json};

/// The schema of the structured JSON a tool returns: MCP's `outputSchema`.
///
/// MCP wants an object at the root of `outputSchema` and of `structuredContent` (rmcp refuses
/// anything else), so a payload that is not an object (a number, a list, an enum, an `Option`)
/// is declared as an object with one required property, `result`, and its values are sent as
/// `{"result": value}` ([`structured`](Self::structured)). An object payload is declared as it
/// is. `$defs` move to the root, so every `$ref` still resolves.
///
/// ```
/// use cy_tools::definition::OutputSchema;
/// use serde_json::json;
///
/// let list = OutputSchema::new(json!({"type": "array", "items": {"type": "integer"}}));
/// assert!(list.wraps_result());
/// assert_eq!(list.value()["required"], json!(["result"]));
/// assert_eq!(list.structured(json!([1, 2])), json!({"result": [1, 2]}));
///
/// let object = OutputSchema::new(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
/// assert!(!object.wraps_result());
/// assert_eq!(object.structured(json!({"n": 1})), json!({"n": 1}));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSchema {
    value: Value,
    wraps: bool,
}

impl OutputSchema {
    /// The output schema for a payload described by `schema` (as schemars writes it): without
    /// `$schema` and root `title`, wrapped when its root is not an object.
    pub fn new(schema: Value) -> OutputSchema {
        let Value::Object(mut root) = schema else {
            // `true` (anything) or `false`: still one property, so clients can read it.
            return OutputSchema::wrapped(schema, None);
        };
        root.remove("$schema");
        root.remove("title");
        if root.get("type") == Some(&Value::String("object".into())) {
            return OutputSchema {
                value: Value::Object(root),
                wraps: false,
            };
        }
        let defs = root.remove("$defs");
        OutputSchema::wrapped(Value::Object(root), defs)
    }

    fn wrapped(inner: Value, defs: Option<Value>) -> OutputSchema {
        let mut value = json!({
            "type": "object",
            "properties": {"result": inner},
            "required": ["result"],
        });
        if let Some(defs) = defs {
            value["$defs"] = defs;
        }
        OutputSchema { value, wraps: true }
    }

    /// The schema, as `tools/list` declares it.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Whether values are sent as `{"result": value}`.
    pub fn wraps_result(&self) -> bool {
        self.wraps
    }

    /// `value` as `structuredContent` carries it.
    pub fn structured(&self, value: Value) -> Value {
        if self.wraps {
            json!({ "result": value })
        } else {
            value
        }
    }
}

/// A type a tool can return inside [`Json`](crate::Json): it declares the tool's output
/// schema, so it must describe itself. Exists so the error for a type that does not says what
/// to do.
#[diagnostic::on_unimplemented(
    message = "`Json<{Self}>` declares the tool's output schema, but `{Self}` does not implement `schemars::JsonSchema`",
    label = "the output schema of this tool cannot be written",
    note = "derive `schemars::JsonSchema` for the types `{Self}` is made of, or return `{Self}` without `Json` (any `serde::Serialize` type is sent as JSON, without an output schema)"
)]
pub trait OutputType: JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> OutputType for T {}

/// Not public API. The schema of `T` as schemars writes it (draft 2020-12), for
/// [`ToolDefinition::with_output_schema`](crate::definition::ToolDefinition::with_output_schema).
#[doc(hidden)]
pub fn output_schema_of<T: OutputType>() -> Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Shape {
        Dot(Point),
        Nothing,
    }

    #[test]
    fn definitions_move_to_the_root_of_a_wrapped_schema() {
        let schema = OutputSchema::new(output_schema_of::<Vec<Shape>>());
        assert!(schema.wraps_result());
        let value = schema.value();
        assert_eq!(value["type"], "object");
        assert_eq!(value["properties"]["result"]["type"], "array");
        assert!(value["properties"]["result"].get("$defs").is_none());
        assert!(value["properties"]["result"].get("title").is_none());
        assert!(value["$defs"]["Shape"].is_object());
        assert!(value["$defs"]["Point"].is_object());
    }

    #[test]
    fn scalars_and_options_are_wrapped_objects_are_not() {
        assert!(OutputSchema::new(output_schema_of::<i64>()).wraps_result());
        assert!(OutputSchema::new(output_schema_of::<Option<Point>>()).wraps_result());
        assert!(OutputSchema::new(output_schema_of::<Shape>()).wraps_result());
        let point = OutputSchema::new(output_schema_of::<Point>());
        assert!(!point.wraps_result());
        assert!(point.value().get("title").is_none() && point.value().get("$schema").is_none());
        assert_eq!(
            OutputSchema::new(Value::Bool(true)).value(),
            &json!({"type": "object", "properties": {"result": true}, "required": ["result"]})
        );
    }
}
