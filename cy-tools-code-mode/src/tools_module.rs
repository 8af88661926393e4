//! `cy_sdk.tools`: the Python module generated from a session's toolset, one typed, documented
//! function per tool the code may call, and the summary of it `execute_code`'s description gives
//! the model.
//!
//! Generated once per toolset and kept ([`ToolsModule::of`] caches by the tools' names,
//! definitions and descriptions), not per run: every session with the same tools shares one.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, Mutex};

use cy_tools::Toolset;
use serde_json::{Map, Value, json};

use super::python_api::{PyFunction, identifier};
use super::summary::summary;

/// The generated `cy_sdk.tools` of one toolset: its source and the functions in it.
///
/// ```
/// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry};
/// use cy_tools_code_mode::ToolsModule;
/// use cy_tools_sandbox::LocalSandbox;
///
/// let dir = tempfile::tempdir().unwrap();
/// let context = ToolContext::new(SessionIdentity::root("s-1", "t"))
///     .with_env(std::sync::Arc::new(LocalSandbox::new(dir.path()).unwrap().env()));
/// let tools = ToolRegistry::linked().unwrap().build(&["read_file", "write_file"], &context);
/// let module = ToolsModule::of(&tools, false);
/// assert_eq!(module.functions(), ["read_file", "write_file"]);
/// assert!(module.source().contains(
///     "def read_file(path: str, *, limit: _t.Optional[int] = None, offset: int = 1) -> _t.Any:"
/// ));
/// ```
#[derive(Debug)]
pub struct ToolsModule {
    source: Arc<str>,
    functions: Vec<String>,
    /// Each function's source, in the order of `functions`.
    sources: Vec<String>,
    summary: String,
}

/// A toolset as far as its module goes: each callable tool's name, definition and description,
/// and whether `execute_code` is among them.
type Key = (Vec<(String, usize, String)>, bool);
type Cache = HashMap<Key, Arc<ToolsModule>>;

/// Kept modules, by toolset. A process sees a handful of toolsets; the bound is for one that
/// builds sessions with ever new tools (the cache is then emptied and starts again).
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(HashMap::new()));
const CACHE_LIMIT: usize = 256;

impl ToolsModule {
    /// The module of the tools in `tools` that code may call: all but `execute_code`, unless
    /// `nesting` allows that too. Made once per toolset and kept.
    pub fn of(tools: &Toolset, nesting: bool) -> Arc<ToolsModule> {
        // Definitions are `'static`, so their addresses name them for the life of the process;
        // the description is part of the key because a binding may carry its own.
        let names: Vec<(String, usize, String)> = tools
            .iter()
            .filter(|t| nesting || t.name() != "execute_code")
            .map(|t| {
                (
                    t.name().to_string(),
                    std::ptr::from_ref(t.definition()).cast::<()>() as usize,
                    t.description().to_string(),
                )
            })
            .collect();
        let key: Key = (names, nesting);
        let mut cache = CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(module) = cache.get(&key) {
            return Arc::clone(module);
        }
        let module = Arc::new(ToolsModule::generate(tools, nesting));
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&module));
        module
    }

    fn generate(tools: &Toolset, nesting: bool) -> ToolsModule {
        let mut functions: Vec<PyFunction> = Vec::new();
        for tool in tools
            .iter()
            .filter(|t| nesting || t.name() != "execute_code")
        {
            let base = identifier(tool.name());
            let mut name = base.clone();
            let mut n = 2;
            while functions.iter().any(|f| f.name == name) || RESERVED.contains(&name.as_str()) {
                name = format!("{base}_{n}");
                n += 1;
            }
            functions.push(PyFunction::of(tool, name));
        }
        ToolsModule {
            source: render(&functions).into(),
            summary: summary(&functions, nesting),
            sources: functions.iter().map(function_source).collect(),
            functions: functions.into_iter().map(|f| f.name).collect(),
        }
    }

    /// The module's Python source.
    pub fn source(&self) -> &Arc<str> {
        &self.source
    }

    /// The functions' names, in the toolset's order.
    pub fn functions(&self) -> &[String] {
        &self.functions
    }

    /// The Python source of the function `name` (its result's `TypedDict` first, when it has
    /// one), which the module holds as a string and runs when the code first uses the
    /// function.
    pub fn function_source(&self, name: &str) -> Option<&str> {
        let i = self.functions.iter().position(|f| f == name)?;
        Some(&self.sources[i])
    }

    /// What `execute_code`'s description adds when code mode is on: that the module exists,
    /// how to use it, and one line per function (at most [`SUMMARY_LINES`] lines and
    /// [`SUMMARY_CHARS`] characters, then how many more there are).
    pub fn summary(&self) -> &str {
        &self.summary
    }
}

/// Names the module itself uses, which a tool's function must not take.
const RESERVED: &[&str] = &[
    "ToolError",
    "_call",
    "_t",
    "_typed",
    "_define",
    "_TOOLS",
    "_SERVERS",
    "_json",
];

/// Most function lines in the description.
pub const SUMMARY_LINES: usize = 40;
/// Most characters of the function lines in the description.
pub const SUMMARY_CHARS: usize = 4000;

const HEADER: &str = r#""""The tools of this session as Python functions: `cy_sdk.tools.read_file(path="a.txt")`.

Generated by cy-tools from the tools' schemas. Each function makes one call through the run's SDK
channel: the host checks the arguments against the tool's schema and runs the tool in the session
(approved and logged like the model's own calls). It returns the tool's text, or the parsed JSON of
a tool with structured results, and raises `cy_sdk.ToolError` with the message the model would get
when the call fails or is refused (a wrong argument too). Required arguments may be given by
position; the others are keyword-only. An optional argument left at `None` is not sent, so the tool
applies its own default. An MCP server's tools are also `cy_sdk.servers.<server>.<tool>`.

A function is defined when it is first used (`_TOOLS` holds its source), so a session with hundreds
of tools imports this module quickly; `cy_sdk.search` and `cy_sdk.describe` read `_TOOLS` too.
"""

import json as _json
import typing as _t

from cy_sdk import ToolError, _call, _define, _typed  # noqa: F401 (used by the functions' sources)
"#;

/// A JSON string, which is also a valid Python string literal (JSON's escapes are Python's).
fn py_str(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

fn render(functions: &[PyFunction]) -> String {
    let mut out = String::from(HEADER);
    let names: Vec<String> = functions.iter().map(|f| py_str(&f.name)).collect();
    let _ = writeln!(out, "\n__all__ = [{}]", names.join(", "));
    // The servers, in the order their first tool comes.
    let mut servers: Vec<(&str, Map<String, Value>)> = Vec::new();
    for f in functions {
        if let Some((server, tool)) = &f.server {
            let (short, name) = (identifier(tool), Value::String(f.name.clone()));
            match servers.iter_mut().find(|(s, _)| s == server) {
                Some((_, tools)) => {
                    tools.insert(short, name);
                }
                None => servers.push((server, Map::from_iter([(short, name)]))),
            }
        }
    }
    // The tables are JSON in string literals, one entry a line: Python compiles a few hundred
    // string literals several times faster than a dict display of as many tuples, and every
    // run compiles this module (its folder is read-only to the run, so no bytecode is kept).
    out.push_str(
        "\n# The MCP servers' modules: by module name, the server's name and its tools' functions\n\
         # there (by the name in the server's module, the function here).\n_SERVERS = _json.loads(\n    \"{\"\n",
    );
    for (i, (server, tools)) in servers.iter().enumerate() {
        let entry = format!(
            "{}: {}{}",
            Value::String(identifier(server)),
            json!([server, tools]),
            if i + 1 < servers.len() { ", " } else { "" }
        );
        let _ = writeln!(out, "    {}", py_str(&entry));
    }
    out.push_str(
        "    \"}\"\n)\n\n# Each function: the tool's name, its path, the call's shape, the argument names, the\n\
         # description, and its source.\n_TOOLS = _json.loads(\n    \"{\"\n",
    );
    for (i, f) in functions.iter().enumerate() {
        let args: Vec<&str> = f.params.iter().map(|p| p.property.as_str()).collect();
        let entry = format!(
            "{}: {}{}",
            Value::String(f.name.clone()),
            json!([
                f.tool,
                f.path(),
                f.short_signature(),
                args,
                f.description,
                function_source(f)
            ]),
            if i + 1 < functions.len() { ", " } else { "" }
        );
        let _ = writeln!(out, "    {}", py_str(&entry));
    }
    out.push_str(
        "    \"}\"\n)\n\n\ndef __getattr__(name):\n    return _define(globals(), name)\n\n\n\
         def __dir__():\n    return list(__all__)\n",
    );
    out
}

/// One function's Python source: its result's `TypedDict` when it has one, then the function,
/// wrapped so that a wrong argument is the host's error.
fn function_source(f: &PyFunction) -> String {
    let mut out = String::new();
    if !f.result_fields.is_empty() {
        let fields: Vec<String> = f
            .result_fields
            .iter()
            .map(|(key, hint)| format!("{}: {hint}", py_str(key)))
            .collect();
        let _ = writeln!(
            out,
            "{} = _t.TypedDict({}, {{{}}}, total=False)\n",
            f.returns,
            py_str(&f.returns),
            fields.join(", ")
        );
    }
    let positional: Vec<String> = f
        .params
        .iter()
        .filter(|p| p.default.is_none())
        .map(|p| py_str(&p.property))
        .collect();
    let renamed: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}: {}", py_str(&p.name), py_str(&p.property)))
        .collect();
    let _ = writeln!(
        out,
        "@_typed({}, [{}], {{{}}})",
        py_str(&f.tool),
        positional.join(", "),
        renamed.join(", ")
    );
    render_function(&mut out, f);
    out
}

fn render_function(out: &mut String, f: &PyFunction) {
    let mut params = Vec::with_capacity(f.params.len() + 1);
    let mut star = false;
    for p in &f.params {
        match &p.default {
            None => params.push(format!("{}: {}", p.name, p.hint)),
            Some(default) => {
                if !star {
                    params.push("*".to_string());
                    star = true;
                }
                params.push(format!("{}: {} = {default}", p.name, p.hint));
            }
        }
    }
    let _ = writeln!(
        out,
        "def {}({}) -> {}:",
        f.name,
        params.join(", "),
        f.returns
    );
    let mut doc = String::new();
    doc.push_str(if f.description.is_empty() {
        "(The tool has no description.)"
    } else {
        &f.description
    });
    if !f.params.is_empty() {
        doc.push_str("\n\nArgs:");
        for p in &f.params {
            let text = if p.description.is_empty() {
                "(no description)"
            } else {
                &p.description
            };
            let _ = write!(doc, "\n    {}: {}", p.name, indent(text, 8));
        }
    }
    doc.push_str("\n\nReturns:\n    ");
    if f.returns == "_t.Any" {
        doc.push_str("The tool's text, or the parsed JSON if it answers with structured content.");
    } else {
        doc.push_str("The tool's structured result, parsed from JSON");
        if f.result_fields.is_empty() {
            doc.push('.');
        } else {
            let keys: Vec<String> = f
                .result_fields
                .iter()
                .map(|(k, _)| format!("`{k}`"))
                .collect();
            let _ = write!(doc, ": a dict with {}.", keys.join(", "));
        }
    }
    doc.push_str(
        "\n\nRaises:\n    ToolError: the call failed or was refused; `str(err)` is the message the model\n        would get.",
    );
    let _ = writeln!(out, "    \"\"\"{}\n    \"\"\"", indent(&escape(&doc), 4));
    let args: Vec<String> = f
        .params
        .iter()
        // JSON strings, which Python reads alike: a server's property name may hold anything.
        .map(|p| format!("{}: {}", py_str(&p.property), p.name))
        .collect();
    let _ = writeln!(
        out,
        "    return _call({}, {{{}}})",
        py_str(&f.tool),
        args.join(", ")
    );
}

/// Lines after the first indented by `by` spaces (blank lines left empty).
fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str(&pad);
            }
        }
        out.push_str(line.trim_end());
    }
    out
}

/// Text safe inside a `"""` string: backslashes doubled, quotes that would end it escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_property_name_is_a_valid_python_string() {
        let f = PyFunction {
            name: "t".to_string(),
            tool: "t".to_string(),
            description: "T.".to_string(),
            params: vec![crate::python_api::PyParam {
                name: "odd".to_string(),
                property: "o\"d\u{1b}d\\\n".to_string(),
                hint: "str".to_string(),
                default: None,
                description: String::new(),
            }],
            returns: "_t.Any".to_string(),
            result_fields: Vec::new(),
            server: None,
        };
        let source = function_source(&f);
        assert!(
            source.contains(r#"return _call("t", {"o\"d\u001bd\\\n": odd})"#),
            "{source}"
        );
    }

    #[test]
    fn docstrings_cannot_end_early() {
        assert_eq!(escape(r#"a """ b \n"#), r#"a \"\"\" b \\n"#);
    }
}
