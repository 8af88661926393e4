//! Toolsets of any size, generated at run time, for the scaling measurements.
//!
//! Each tool is a [`RawToolDefinition`] (a hand-written JSON Schema, arguments validated
//! against it) made at run time and leaked to get the `'static` lifetime a definition has when
//! `#[tool]` writes it as a `static`: a process defines its tools once and keeps them. Writing
//! 1,000 `#[tool]` functions (or expanding a `macro_rules!` to them) would measure the same
//! binding path at the price of minutes of compile time; binding does not look at how a
//! definition was made, only at its capability set and its cached schema.
//!
//! Two schema sizes show that a session does not copy schemas: [`SchemaSize::Small`] is two
//! properties, [`SchemaSize::Large`] forty properties with long descriptions, an enum and a
//! nested object (about 15 KB of JSON). Binding the same number of tools of either size must
//! cost a session the same bytes.

use std::sync::Arc;

use cy_tools::definition::Definition;
use cy_tools::{
    BoxFuture, CallInfo, Ctx, SessionIdentity, ToolContext, ToolRegistry, ToolResult,
    definition::RawToolDefinition,
};
use serde_json::{Map, Value, json};

/// How big each generated tool's parameter schema is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaSize {
    /// Two properties: a string and an optional integer.
    Small,
    /// Forty properties with long descriptions, an enum and a nested object.
    Large,
}

impl SchemaSize {
    /// The name used in benchmark ids and reports.
    pub fn name(self) -> &'static str {
        match self {
            SchemaSize::Small => "small",
            SchemaSize::Large => "large",
        }
    }

    /// A fresh copy of the parameter schema each generated tool of this size declares.
    pub fn schema(self) -> Value {
        (self.source())()
    }

    fn source(self) -> fn() -> Value {
        match self {
            SchemaSize::Small => small_schema,
            SchemaSize::Large => large_schema,
        }
    }
}

fn small_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": ["integer", "null"], "minimum": 0, "description": "At most this many."}
        },
        "required": ["query"]
    })
}

fn large_schema() -> Value {
    let mut properties = Map::new();
    for i in 0..40 {
        let description = format!(
            "Field number {i} of the request. This description is deliberately long, as real \
             tool parameters often are: it explains what the value means, which forms it may \
             take, what happens when it is left out and how it interacts with the other fields \
             of the same call."
        );
        let schema = match i % 4 {
            0 => json!({"type": "string", "description": description}),
            1 => json!({"type": ["integer", "null"], "minimum": 0, "description": description}),
            2 => json!({
                "type": "string",
                "enum": ["alpha", "beta", "gamma", "delta", "epsilon"],
                "description": description
            }),
            _ => json!({
                "type": "object",
                "description": description,
                "properties": {
                    "name": {"type": "string"},
                    "value": {"type": "number"},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        };
        properties.insert(format!("field_{i:02}"), schema);
    }
    json!({"type": "object", "properties": properties, "required": ["field_00"]})
}

fn echo<'a>(args: Value, _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move { ToolResult::text(args.to_string()) })
}

/// `count` definitions named `tool_0000`, `tool_0001`, … with schemas of `size`, leaked so they
/// are `'static` like a `#[tool]` static. Call once per process and size.
pub fn definitions(count: usize, size: SchemaSize) -> Vec<&'static dyn Definition> {
    (0..count)
        .map(|i| {
            let name: &'static str = Box::leak(format!("tool_{i:04}").into_boxed_str());
            let definition: &'static RawToolDefinition =
                Box::leak(Box::new(RawToolDefinition::new(
                    name,
                    "A generated tool for the scaling benchmark.",
                    size.source(),
                    echo,
                )));
            definition as &'static dyn Definition
        })
        .collect()
}

/// A registry of `definitions` under their own names, and those names in order.
///
/// # Panics
/// When two definitions share a name.
pub fn registry(definitions: &[&'static dyn Definition]) -> (ToolRegistry, Vec<&'static str>) {
    let mut registry = ToolRegistry::new();
    let mut names = Vec::with_capacity(definitions.len());
    for &definition in definitions {
        // The definition is `'static`, so the name it hands out is too.
        let name: &'static str = definition.name();
        registry
            .register(name, definition)
            .expect("generated names are valid and distinct");
        names.push(name);
    }
    (registry, names)
}

/// The context of session number `i`: its own identity, no services (the generated tools need
/// none), as a session factory would make it.
pub fn session_context(i: usize) -> Arc<ToolContext> {
    Arc::new(ToolContext::new(SessionIdentity::root(
        format!("session-{i:05}"),
        "bench",
    )))
}
