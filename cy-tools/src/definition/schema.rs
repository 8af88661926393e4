//! The canonical parameter schema of a definition, and what is derived from it once.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value};

/// Counts canonical schemas generated in this process, so a test can prove binding reuses them.
static GENERATED: AtomicUsize = AtomicUsize::new(0);

/// Not public API. How many canonical schemas this process has generated so far.
#[doc(hidden)]
pub fn schemas_generated() -> usize {
    GENERATED.load(Ordering::Relaxed)
}

/// A definition's canonical parameter schema and what argument checking derives from it.
///
/// Canonical means: JSON Schema 2020-12, root `type: object`, `properties` always present,
/// `additionalProperties: false` at the root, and no `$schema`, root `title` or root
/// `description` (the tool's description says what the tool does; repeating it inside the
/// parameters only costs tokens).
#[derive(Debug)]
pub struct Schema {
    value: Value,
    /// The canonical schema with the `$schema` the tool's own schema named, when it named one:
    /// what the MCP export declares.
    with_meta_schema: Option<Value>,
    properties: Vec<String>,
    fields: Vec<Field>,
    field_list: String,
}

/// One root field of a parameter schema, as an invalid-arguments answer lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// A short name of the type it accepts (`string`, `integer or null`, `` one of `a` or `b` ``).
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether a call must send it.
    pub required: bool,
}

impl Schema {
    /// Canonicalizes `schema`, or says why it cannot be a tool's parameter schema.
    ///
    /// ```
    /// use cy_tools::definition::Schema;
    /// let schema = Schema::canonical(serde_json::json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "title": "Params",
    ///     "type": "object",
    ///     "properties": { "path": { "type": "string" } },
    ///     "required": ["path"]
    /// })).unwrap();
    /// assert_eq!(schema.value(), &serde_json::json!({
    ///     "type": "object",
    ///     "properties": { "path": { "type": "string" } },
    ///     "required": ["path"],
    ///     "additionalProperties": false
    /// }));
    /// assert_eq!(schema.field_list(), "`path` (string, required)");
    /// ```
    ///
    /// # Errors
    /// The root is not an object schema with object `properties`.
    pub fn canonical(schema: Value) -> Result<Schema, String> {
        GENERATED.fetch_add(1, Ordering::Relaxed);
        let Value::Object(mut root) = schema else {
            return Err(format!(
                "the parameter schema must be a JSON object, got `{schema}`"
            ));
        };
        let meta_schema = root.remove("$schema");
        root.remove("title");
        root.remove("description");
        match root.get("type") {
            Some(Value::String(t)) if t == "object" => {}
            // schemars describes `()` and unit structs as `null`: a tool without parameters.
            Some(Value::String(t)) if t == "null" && !root.contains_key("properties") => {
                root.insert("type".into(), Value::String("object".into()));
            }
            other => {
                return Err(format!(
                    "the parameter schema's root must have `\"type\": \"object\"`, got {}; wrap the parameters in a struct",
                    other.map_or_else(|| "no `type`".to_string(), |t| format!("`{t}`"))
                ));
            }
        }
        let properties = match root
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            Value::Object(props) => {
                let mut names = props.keys().cloned().collect::<Vec<_>>();
                names.sort();
                names
            }
            other => {
                return Err(format!(
                    "the parameter schema's `properties` must be an object, got `{other}`"
                ));
            }
        };
        root.insert("additionalProperties".into(), Value::Bool(false));
        let fields = describe_fields(&root);
        let field_list = list_fields(&fields);
        let with_meta_schema = meta_schema.map(|uri| {
            let mut declared = root.clone();
            declared.insert("$schema".into(), uri);
            Value::Object(declared)
        });
        Ok(Schema {
            value: Value::Object(root),
            with_meta_schema,
            properties,
            fields,
            field_list,
        })
    }

    /// The canonical schema.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The canonical schema with the `$schema` (the JSON Schema dialect) that the tool's own
    /// schema named, or the canonical schema when it named none: what MCP's export declares,
    /// since MCP clients read `$schema` (a raw tool's, say, written for 2020-12), while the
    /// provider dialects leave it out.
    ///
    /// ```
    /// use cy_tools::definition::Schema;
    /// let uri = "https://json-schema.org/draft/2020-12/schema";
    /// let schema = Schema::canonical(serde_json::json!({"$schema": uri, "type": "object"})).unwrap();
    /// assert!(schema.value().get("$schema").is_none());
    /// assert_eq!(schema.with_meta_schema()["$schema"], uri);
    /// ```
    pub fn with_meta_schema(&self) -> &Value {
        self.with_meta_schema.as_ref().unwrap_or(&self.value)
    }

    /// Root property names, sorted.
    pub fn properties(&self) -> &[String] {
        &self.properties
    }

    /// The root fields with type and whether required, for error messages:
    /// `` `path` (string, required), `limit` (integer or null) ``; `no fields` when there are none.
    pub fn field_list(&self) -> &str {
        &self.field_list
    }

    /// The root fields, required first then by name: what [`field_list`](Self::field_list)
    /// says, as data.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    pub(crate) fn has_property(&self, name: &str) -> bool {
        self.properties.iter().any(|p| p == name)
    }
}

fn describe_fields(root: &Map<String, Value>) -> Vec<Field> {
    let required: Vec<&str> = root
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(props)) = root.get("properties") else {
        return Vec::new();
    };
    let defs = root.get("$defs").and_then(Value::as_object);
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    // Required fields first: they are what a model most often gets wrong.
    names.sort_by_key(|n| !required.contains(&n.as_str()));
    names
        .into_iter()
        .map(|name| Field {
            name: name.clone(),
            kind: type_name(&props[name.as_str()], defs, 0),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

/// `` `path` (string, required), `limit` (integer or null) ``, or `no fields`.
fn list_fields(fields: &[Field]) -> String {
    if fields.is_empty() {
        return "no fields".to_string();
    }
    fields
        .iter()
        .map(|field| {
            if field.required {
                format!("`{}` ({}, required)", field.name, field.kind)
            } else {
                format!("`{}` ({})", field.name, field.kind)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A short name for the type a property schema accepts; enums list their values.
fn type_name(schema: &Value, defs: Option<&Map<String, Value>>, depth: usize) -> String {
    if let Some(values) = enum_values(schema) {
        return format!("one of {values}");
    }
    match schema.get("type") {
        Some(Value::String(t)) => return t.clone(),
        Some(Value::Array(ts)) => {
            return ts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" or ");
        }
        _ => {}
    }
    if let Some(Value::String(reference)) = schema.get("$ref") {
        let target = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| defs?.get(name));
        return match target {
            // Bounded: a recursive type is named, not followed forever.
            Some(target) if depth < 4 => type_name(target, defs, depth + 1),
            _ => "object".to_string(),
        };
    }
    match schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        Some(Value::Array(options)) => {
            let mut kinds: Vec<String> = Vec::new();
            for option in options {
                let kind = type_name(option, defs, depth + 1);
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
            kinds.join(" or ")
        }
        _ => "any JSON value".to_string(),
    }
}

/// `` `a`, `b` or `c` `` for an `enum`, or a `oneOf`/`anyOf` of `const`s (schemars' form for a
/// unit enum whose values have doc comments).
fn enum_values(schema: &Value) -> Option<String> {
    let values: Vec<&Value> = if let Some(Value::Array(values)) = schema.get("enum") {
        values.iter().collect()
    } else if let Some(Value::String(_) | Value::Number(_) | Value::Bool(_)) = schema.get("const") {
        vec![&schema["const"]]
    } else {
        let options = schema
            .get("oneOf")
            .or_else(|| schema.get("anyOf"))?
            .as_array()?;
        let consts: Option<Vec<&Value>> = options
            .iter()
            .map(|o| {
                o.get("const")
                    .or_else(|| o.get("enum")?.as_array()?.first())
            })
            .collect();
        consts?
    };
    let shown: Vec<String> = values
        .iter()
        .map(|v| match v {
            Value::String(s) => format!("`{s}`"),
            other => format!("`{other}`"),
        })
        .collect();
    match shown.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        [init @ .., last] => Some(format!("{} or {last}", init.join(", "))),
    }
}

/// When the one property of a tool's parameter schema is a struct (an object with declared
/// properties, directly or through `$ref`), what to do instead of sending it nested.
pub(crate) fn lone_struct_argument(schema: &Value) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    let [(name, property)] = properties.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let target = match property.get("$ref").and_then(Value::as_str) {
        Some(pointer) => schema.pointer(pointer.strip_prefix('#')?)?,
        None => property,
    };
    let is_struct = target
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    is_struct.then(|| {
        format!(
            "`{name}` is its only argument and a struct, so the model would have to send the struct's fields nested, as `{{\"{name}\": {{...}}}}`; mark the parameter `#[args]` to take the struct's fields as the tool's arguments, or `#[arg(nested)]` to keep them under `{name}`"
        )
    })
}

/// Generates the canonical schema of `P` with schemars (draft 2020-12).
pub(crate) fn generate<P: schemars::JsonSchema>() -> Result<Schema, String> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.meta_schema = None)
        .into_generator();
    let schema = generator.into_root_schema_for::<P>();
    Schema::canonical(schema.to_value())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unit_params_become_an_empty_object() {
        let schema = generate::<()>().unwrap();
        assert_eq!(
            schema.value(),
            &json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
        assert_eq!(schema.field_list(), "no fields");
    }

    #[test]
    fn non_object_root_is_refused_with_the_fix() {
        let err = generate::<String>().unwrap_err();
        assert_eq!(
            err,
            "the parameter schema's root must have `\"type\": \"object\"`, got `\"string\"`; wrap the parameters in a struct"
        );
    }

    #[test]
    fn a_lone_struct_argument_is_named_with_the_fix() {
        let nested = json!({
            "type": "object",
            "properties": {"pair": {"$ref": "#/$defs/Pair"}},
            "$defs": {"Pair": {"type": "object", "properties": {"a": {"type": "integer"}}}}
        });
        let problem = lone_struct_argument(&nested).unwrap();
        assert!(
            problem.starts_with("`pair` is its only argument and a struct"),
            "{problem}"
        );
        assert!(problem.contains("`#[args]`") && problem.contains("`#[arg(nested)]`"));
        let inline = json!({"type": "object", "properties": {"p": {"type": "object", "properties": {"a": {}}}}});
        assert!(lone_struct_argument(&inline).is_some());
        for fine in [
            json!({"type": "object", "properties": {"mode": {"enum": ["a", "b"]}}}),
            json!({"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"x": {}}}, "b": {"type": "integer"}}}),
            json!({"type": "object", "properties": {}}),
        ] {
            assert_eq!(lone_struct_argument(&fine), None, "{fine}");
        }
    }

    #[test]
    fn field_list_puts_required_first() {
        let schema = Schema::canonical(json!({
            "type": "object",
            "properties": {
                "limit": {"type": ["integer", "null"]},
                "mode": {"enum": ["a", "b"]},
                "path": {"type": "string"}
            },
            "required": ["path"]
        }))
        .unwrap();
        assert_eq!(
            schema.field_list(),
            "`path` (string, required), `limit` (integer or null), `mode` (one of `a` or `b`)"
        );
    }
}
