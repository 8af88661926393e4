//! What `execute_code`'s description says of the generated module: each function on a line
//! when they fit, else how to discover them and the modules they are in.

use std::fmt::Write as _;

use super::python_api::{PyFunction, identifier};
use super::tools_module::{SUMMARY_CHARS, SUMMARY_LINES};

/// Longest one-line description of a function.
const LINE_DESCRIPTION: usize = 100;

/// The description's addition for `functions` (see [`ToolsModule::summary`](super::ToolsModule::summary)).
pub(super) fn summary(functions: &[PyFunction], nesting: bool) -> String {
    let mut out = String::from(
        "\n\nCode mode is on: the code may call this session's other tools as Python functions. \
`import cy_sdk`, then call `cy_sdk.tools.NAME(...)`: each returns the tool's text (or the parsed \
JSON of a structured result) and raises `cy_sdk.ToolError`, whose text is the tool's message, when \
the call fails or is refused; `help(cy_sdk.tools.NAME)` shows a function's arguments and \
documentation.",
    );
    if !nesting {
        out.push_str(" `execute_code` itself cannot be called from the code.");
    }
    if functions.is_empty() {
        out.push_str(" This session has no other tools, so there is nothing to call.");
        return out;
    }
    let lines: Vec<String> = functions
        .iter()
        .map(|f| {
            format!(
                "\n- {}: {}",
                f.short_signature(),
                first_sentence(&f.description)
            )
        })
        .collect();
    let fits = lines.len() <= SUMMARY_LINES
        && lines.iter().map(String::len).sum::<usize>() <= SUMMARY_CHARS;
    if fits {
        out.push_str(" The functions:");
        for line in lines {
            out.push_str(&line);
        }
        return out;
    }
    // Too many to list: how to find them, and where they are.
    let _ = write!(
        out,
        " There are {} functions; find them from the code: `cy_sdk.search(\"words\")` lists the \
tools whose name, description or arguments have those words (each with its path and a one-line \
summary), `cy_sdk.describe(\"path or name\")` gives one's signature and documentation, \
`cy_sdk.sources()` the modules. The modules:",
        functions.len()
    );
    let builtin = functions.iter().filter(|f| f.server.is_none()).count();
    if builtin > 0 {
        let _ = write!(out, "\n- cy_sdk.tools: {builtin} functions");
    }
    let mut servers: Vec<(&str, usize)> = Vec::new();
    for f in functions {
        if let Some((server, _)) = &f.server {
            match servers.iter_mut().find(|(s, _)| s == server) {
                Some((_, n)) => *n += 1,
                None => servers.push((server, 1)),
            }
        }
    }
    if !servers.is_empty() {
        // One line of names: dozens of servers cost a few tokens each.
        out.push_str("\nThe MCP servers' modules, `cy_sdk.servers.NAME` (tools):");
        let mut used = 0;
        for (i, (server, n)) in servers.iter().enumerate() {
            let entry = format!(" {} ({n})", identifier(server));
            if used + entry.len() > SUMMARY_CHARS {
                let _ = write!(
                    out,
                    " ... and {} more: `cy_sdk.sources()` lists them all.",
                    servers.len() - i
                );
                return out;
            }
            used += entry.len();
            out.push_str(&entry);
            out.push(if i + 1 == servers.len() { '.' } else { ',' });
        }
    }
    out
}

/// The description's first sentence on one line, cut at [`LINE_DESCRIPTION`] characters.
fn first_sentence(description: &str) -> String {
    let flat = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat.find(". ").map_or(flat.len(), |i| i + 1);
    let sentence = &flat[..end];
    if sentence.chars().count() <= LINE_DESCRIPTION {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(LINE_DESCRIPTION - 3).collect();
    format!("{}...", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_sentence_is_one_line_and_bounded() {
        assert_eq!(
            first_sentence("Read a file.\nMore here. And more."),
            "Read a file."
        );
        let long = "word ".repeat(60);
        let cut = first_sentence(&long);
        assert!(cut.ends_with("...") && cut.chars().count() <= LINE_DESCRIPTION);
    }

    fn toolset(n: usize, description: &str, servers: usize) -> Vec<PyFunction> {
        (0..n)
            .map(|i| PyFunction {
                name: format!("tool_{i}"),
                tool: format!("tool_{i}"),
                description: description.to_string(),
                params: Vec::new(),
                returns: "_t.Any".to_string(),
                result_fields: Vec::new(),
                server: (i % (servers + 1) != 0)
                    .then(|| (format!("s-{}", i % (servers + 1)), format!("t{i}"))),
            })
            .collect()
    }

    fn listed(text: &str) -> Vec<&str> {
        text.lines().filter(|l| l.starts_with("- ")).collect()
    }

    #[test]
    fn a_small_toolset_is_listed_and_a_large_one_by_module() {
        // Small: every function, and what nesting changes.
        let text = summary(&toolset(3, "Does a thing.", 0), false);
        assert_eq!(
            listed(&text),
            [
                "- tool_0(): Does a thing.",
                "- tool_1(): Does a thing.",
                "- tool_2(): Does a thing."
            ]
        );
        assert!(text.contains("`execute_code` itself cannot be called"));
        assert!(!summary(&toolset(3, "x", 0), true).contains("cannot be called"));
        // More lines than the bound: the modules, with how to search them.
        let text = summary(&toolset(100, "Does a thing.", 3), false);
        assert_eq!(listed(&text), ["- cy_sdk.tools: 25 functions"]);
        assert!(
            text.ends_with(
                "\nThe MCP servers' modules, `cy_sdk.servers.NAME` (tools): s_1 (25), s_2 (25), s_3 (25)."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "There are 100 functions; find them from the code: `cy_sdk.search(\"words\")`"
            ),
            "{text}"
        );
        // Long lines: the character bound alone.
        let text = summary(&toolset(39, &"word ".repeat(40), 0), false);
        assert_eq!(listed(&text), ["- cy_sdk.tools: 39 functions"]);
        // Very many servers: bounded too.
        let text = summary(&toolset(5000, "x", 1000), false);
        assert!(
            text.ends_with(" more: `cy_sdk.sources()` lists them all."),
            "{text}"
        );
        assert!(text.len() < SUMMARY_CHARS + 1500, "{}", text.len());
    }
}
