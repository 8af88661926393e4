//! `ToolSearch`: finding tools by words, for hosts that declare a few tools and a search tool
//! instead of hundreds of definitions (the model loop's tool search, MCP's `search_tools`).
//!
//! The ranking is the one code mode's `cy_sdk.search` uses in the sandbox, so a model finds
//! the same tools whichever way it looks: a query's words (runs of letters and digits,
//! lowercased, `camelCase` split; words such as `the` and `of` left out) each match a tool's word equal to it or, for a word of three
//! letters or more, starting with it (`dir` finds `directory`); a match in the tool's name
//! counts 3, in its argument names 2, in its description 1. Tools that match more of the
//! query's words come first, then those of the higher score, then the toolset's order.

use serde_json::Value;

use crate::binding::{BoundTool, Toolset};

/// The words of a toolset's tools, ready to search.
///
/// ```
/// use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, dialect::ToolSearch};
/// # /// The weather of a city today.
/// # #[cy_tools::tool] async fn get_weather(/** The city. */ city: String) -> String { city }
/// # /// Sends a mail.
/// # #[cy_tools::tool] async fn send_mail(/** Whom to. */ to: String) -> String { to }
/// let tools = ToolRegistry::linked().unwrap().build(&["get_weather", "send_mail"], &ToolContext::new(SessionIdentity::root("s", "t")));
/// let search = ToolSearch::new(&tools);
/// assert_eq!(search.find("weather in a city", 5), ["get_weather"]);
/// assert_eq!(search.find("mail", 5), ["send_mail"]);
/// assert!(search.find("xyzzy", 5).is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct ToolSearch {
    entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    name: String,
    /// The name's, the argument names' and the description's words.
    fields: [Vec<String>; 3],
}

impl ToolSearch {
    /// The index of `tools`.
    pub fn new(tools: &Toolset) -> ToolSearch {
        ToolSearch::of(tools.iter())
    }

    /// The index of the tools `tools` yields, in that order.
    pub fn of<'a>(tools: impl IntoIterator<Item = &'a BoundTool>) -> ToolSearch {
        let entries = tools
            .into_iter()
            .map(|tool| {
                let mut args = Vec::new();
                if let Some(properties) = tool.parameters()["properties"].as_object() {
                    for name in properties.keys() {
                        args.extend(words(name));
                    }
                }
                Entry {
                    name: tool.name().to_string(),
                    fields: [
                        dedup(words(tool.name())),
                        dedup(args),
                        dedup(words(tool.description())),
                    ],
                }
            })
            .collect();
        ToolSearch { entries }
    }

    /// The names of at most `limit` tools matching `query`, best first (see the module's
    /// documentation for the ranking). Empty when no word of the query matches.
    pub fn find(&self, query: &str, limit: usize) -> Vec<&str> {
        let query: Vec<String> = words(query)
            .into_iter()
            .filter(|w| !STOP_WORDS.contains(&w.as_str()))
            .collect();
        if query.is_empty() {
            return Vec::new();
        }
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        for (position, entry) in self.entries.iter().enumerate() {
            let mut matched = 0;
            let mut score = 0;
            for word in &query {
                let weight = entry
                    .fields
                    .iter()
                    .zip([3, 2, 1])
                    .find(|(field, _)| {
                        field
                            .iter()
                            .any(|w| w == word || (word.len() >= 3 && w.starts_with(word.as_str())))
                    })
                    .map_or(0, |(_, weight)| weight);
                if weight > 0 {
                    matched += 1;
                    score += weight;
                }
            }
            if matched > 0 {
                found.push((matched, score, position));
            }
        }
        found.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        found
            .into_iter()
            .take(limit)
            .map(|(_, _, position)| self.entries[position].name.as_str())
            .collect()
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The JSON Schema of a search tool's arguments: `query` (words) and an optional `limit`.
pub fn search_tool_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Words to look for in the tools' names, descriptions and argument names."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "description": "How many tools to find at most (default 5)."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

/// Words a query leaves out: they are in most descriptions, so they would rank tools by how
/// much English they have. The same list as `cy_sdk.search`'s.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "its", "of",
    "on", "or", "that", "the", "this", "to", "with",
];

/// `text`'s words: runs of ASCII letters and digits, lowercased, `camelCase` split.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            word.push(c.to_ascii_lowercase());
        } else {
            previous_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn dedup(mut words: Vec<String>) -> Vec<String> {
    words.sort_unstable();
    words.dedup();
    words
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_split_like_python_s() {
        assert_eq!(
            words("getCurrentTime of git_diff-staged 2x"),
            [
                "get", "current", "time", "of", "git", "diff", "staged", "2x"
            ]
        );
        assert_eq!(words("HTTPServer"), ["httpserver"]);
        assert!(words("—").is_empty());
    }
}
