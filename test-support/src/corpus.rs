//! The fixed tool corpus: the `tools/list` of five real MCP servers installed from the
//! registries (`corpus/*.json`, captured by `scripts/capture-tool-corpus`), replicated under
//! distinct server names to as many tools as a test asks (500 for the measurements).
//!
//! [`definitions`] makes each corpus tool a definition as the MCP client makes a server's tool
//! (its real input and output schemas, named `{server}__{tool}`, [`Definition::mcp_server`]
//! set), whose call checks the arguments against the real schema and answers with what it got
//! (`{"tool", "arguments"}` as JSON), so a suite can call 500 tools without 50 processes.

use std::sync::{Arc, LazyLock};

use cy_tools::binding::{BindError, BoundContext, bind_tool};
use cy_tools::call::ArgsError;
use cy_tools::capability::Capabilities;
use cy_tools::definition::{ArgsCheck, Definition, OutputSchema, Schema, ToolMeta};
use cy_tools::{BoundTool, BoxFuture, CallInfo, ToolContext, ToolResult};
use serde_json::{Map, Value, json};

/// The captured servers, in the order they are replicated: name and `tools/list` document.
pub const CAPTURED: [(&str, &str); 5] = [
    ("everything", include_str!("../corpus/everything.json")),
    ("filesystem", include_str!("../corpus/filesystem.json")),
    ("memory", include_str!("../corpus/memory.json")),
    ("git", include_str!("../corpus/git.json")),
    ("time", include_str!("../corpus/time.json")),
];

/// The tools of one captured server, as `tools/list` gave them.
pub fn captured(server: &str) -> Vec<Value> {
    let (_, text) = CAPTURED
        .iter()
        .find(|(name, _)| *name == server)
        .unwrap_or_else(|| panic!("no captured server `{server}`"));
    let doc: Value = serde_json::from_str(text).expect("the corpus is JSON");
    doc["tools"].as_array().expect("a `tools` list").clone()
}

/// One corpus tool: the server it is listed under (`git-3`), the captured server it copies
/// (`git`) and its `tools/list` entry.
#[derive(Clone, Debug)]
pub struct CorpusTool {
    pub server: String,
    pub captured: &'static str,
    pub tool: Value,
}

impl CorpusTool {
    /// The tool's name on its server.
    pub fn name(&self) -> &str {
        self.tool["name"].as_str().unwrap_or_default()
    }

    /// The session's name of it: `{server}__{tool}`.
    pub fn session_name(&self) -> String {
        format!("{}__{}", self.server, self.name())
    }

    /// Arguments its input schema accepts: every property, required or not, so each
    /// argument's mapping is used (see [`sample`]).
    pub fn arguments(&self) -> Value {
        let mut out = Map::new();
        if let Some(properties) = self.tool["inputSchema"]["properties"].as_object() {
            for (name, property) in properties {
                out.insert(name.clone(), sample(property));
            }
        }
        Value::Object(out)
    }
}

/// A value `schema` accepts.
pub fn sample(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema[key].as_array() {
            let first = alternatives
                .iter()
                .find(|a| a["type"] != "null")
                .unwrap_or(&alternatives[0]);
            return sample(first);
        }
    }
    let kind = match &schema["type"] {
        Value::String(kind) => kind.as_str(),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "string" if schema["format"] == "uri" => json!("https://example.com/a"),
        "string" => json!("a"),
        "integer" => json!(schema["minimum"].as_i64().unwrap_or(1).max(1)),
        "number" => json!(1.5),
        "boolean" => json!(true),
        "array" => {
            let n = schema["minItems"].as_u64().unwrap_or(1).max(1);
            Value::Array((0..n).map(|_| sample(&schema["items"])).collect())
        }
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    if required.contains(&name.as_str()) {
                        out.insert(name.clone(), sample(property));
                    }
                }
            }
            Value::Object(out)
        }
        _ => Value::Null,
    }
}

/// The first `total` tools of the corpus: the captured servers in turn, the first copy under
/// their own names, the next as `everything-2`, `filesystem-2`, ... until there are `total`.
pub fn tools(total: usize) -> Vec<CorpusTool> {
    static ALL: LazyLock<Vec<(&'static str, Vec<Value>)>> = LazyLock::new(|| {
        CAPTURED
            .iter()
            .map(|(name, _)| (*name, captured(name)))
            .collect()
    });
    let mut out = Vec::with_capacity(total);
    let mut round = 1;
    while out.len() < total {
        for (captured, listed) in ALL.iter() {
            let server = if round == 1 {
                (*captured).to_string()
            } else {
                format!("{captured}-{round}")
            };
            for tool in listed {
                if out.len() == total {
                    return out;
                }
                out.push(CorpusTool {
                    server: server.clone(),
                    captured,
                    tool: tool.clone(),
                });
            }
        }
        round += 1;
    }
    out
}

/// A corpus tool as a definition (see the module's documentation).
pub struct CorpusDefinition {
    meta: ToolMeta,
    server: String,
    tool: String,
    schema: Schema,
    output: Option<OutputSchema>,
    check: Option<ArgsCheck>,
}

/// The definitions of `tools` (made once per tool and kept, as definitions are `'static`).
pub fn definitions(tools: &[CorpusTool]) -> Vec<&'static CorpusDefinition> {
    tools.iter().map(definition).collect()
}

fn definition(tool: &CorpusTool) -> &'static CorpusDefinition {
    let name: &'static str = Box::leak(tool.session_name().into_boxed_str());
    let description: &'static str = Box::leak(
        tool.tool["description"]
            .as_str()
            .unwrap_or_default()
            .to_string()
            .into_boxed_str(),
    );
    let schema = Schema::canonical(tool.tool["inputSchema"].clone())
        .unwrap_or_else(|err| panic!("`{name}`: {err}"));
    let check = ArgsCheck::new(schema.value()).ok();
    Box::leak(Box::new(CorpusDefinition {
        meta: ToolMeta::new(name, description),
        server: tool.server.clone(),
        tool: tool.name().to_string(),
        schema,
        output: tool
            .tool
            .get("outputSchema")
            .cloned()
            .map(OutputSchema::new),
        check,
    }))
}

/// The corpus's first `total` tools bound to `context`.
pub fn bound(total: usize, context: &Arc<ToolContext>) -> Vec<BoundTool> {
    definitions(&tools(total))
        .into_iter()
        .map(|d| bind_tool(d, Arc::clone(context)).expect("corpus tools need nothing"))
        .collect()
}

impl Definition for CorpusDefinition {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::NONE
    }

    fn schema(&self) -> Result<&Schema, BindError> {
        Ok(&self.schema)
    }

    fn output_schema(&self) -> Option<&OutputSchema> {
        self.output.as_ref()
    }

    fn mcp_server(&self) -> Option<(&str, &str)> {
        Some((&self.server, &self.tool))
    }

    fn start<'a>(
        &'a self,
        _context: BoundContext<'a>,
        args: Map<String, Value>,
        _call: CallInfo<'a>,
    ) -> Result<BoxFuture<'a, ToolResult>, ArgsError> {
        let args = Value::Object(args);
        if let Some(check) = &self.check {
            check.check(&args)?;
        }
        let answer = json!({"tool": self.meta.name(), "arguments": args});
        Ok(Box::pin(async move { ToolResult::json(answer) }))
    }
}
