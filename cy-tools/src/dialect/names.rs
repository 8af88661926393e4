//! Tool names per dialect: each provider's rule (the table in [`dialect`](super)'s
//! documentation), and one reversible mapping of a set of tool names into a stricter rule.

use std::collections::{BTreeSet, HashMap};

use super::Dialect;

/// The tool names a dialect accepts.
///
/// ```
/// use cy_tools::dialect::Dialect;
/// let openai = Dialect::OpenAi.name_rule();
/// assert!(openai.accepts("create_issue"));
/// assert!(!openai.accepts("github.create_issue"));
/// assert_eq!(openai.pattern(), "^[a-zA-Z0-9_-]{1,64}$");
/// assert!(Dialect::Mcp.name_rule().accepts("github.create_issue"));
/// assert!(!Dialect::Gemini.name_rule().accepts("2fa_code"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameRule {
    pattern: &'static str,
    max_len: usize,
    dots: bool,
    letter_first: bool,
}

impl NameRule {
    const MCP: NameRule = NameRule {
        pattern: "^[A-Za-z0-9_.-]{1,128}$",
        max_len: 128,
        dots: true,
        letter_first: false,
    };
    const OPENAI: NameRule = NameRule {
        pattern: "^[a-zA-Z0-9_-]{1,64}$",
        max_len: 64,
        dots: false,
        letter_first: false,
    };
    const GEMINI: NameRule = NameRule {
        pattern: "^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$",
        max_len: 64,
        dots: true,
        letter_first: true,
    };

    /// The rule as a regular expression, for messages.
    pub const fn pattern(&self) -> &'static str {
        self.pattern
    }

    /// The longest name the rule accepts.
    pub const fn max_len(&self) -> usize {
        self.max_len
    }

    /// Whether `name` follows the rule.
    pub fn accepts(&self, name: &str) -> bool {
        !name.is_empty()
            && name.len() <= self.max_len
            && name.bytes().all(|b| self.byte_ok(b))
            && (!self.letter_first
                || name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    }

    fn byte_ok(&self, b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (self.dots && b == b'.')
    }

    /// The name closest to `name` that follows the rule: each character it refuses becomes `_`
    /// (so `github.create_issue` becomes `github_create_issue`), `_` goes in front when the
    /// rule wants a letter first, and a name that is still too long is cut, keeping a hash of
    /// the whole so two long names do not meet.
    fn nearest(&self, name: &str) -> String {
        let mut out: String = name
            .chars()
            .map(|c| {
                if c.is_ascii() && self.byte_ok(c as u8) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if out.is_empty()
            || (self.letter_first
                && !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        {
            out.insert(0, '_');
        }
        if out.len() > self.max_len {
            out = self.with_hash(&out, name, 0);
        }
        out
    }

    /// `base` cut to leave room for `_` and eight hex digits of a hash of `name` (and `salt`).
    fn with_hash(&self, base: &str, name: &str, salt: u32) -> String {
        let hash = fnv1a(name.as_bytes(), salt);
        let keep = self.max_len.saturating_sub(9).min(base.len());
        format!("{}_{hash:08x}", &base[..keep])
    }
}

/// FNV-1a (32 bits): stable across processes and versions, which `std`'s hasher is not, so a
/// mapped name is the same every time the same tools are declared.
fn fnv1a(bytes: &[u8], salt: u32) -> u32 {
    let mut hash: u32 = 0x811c_9dc5 ^ salt;
    for b in bytes {
        hash ^= u32::from(*b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

impl Dialect {
    /// The tool names this dialect accepts (the table in [`dialect`](crate::dialect)'s
    /// documentation).
    pub const fn name_rule(self) -> NameRule {
        match self {
            Dialect::Mcp => NameRule::MCP,
            Dialect::OpenAi
            | Dialect::OpenAiStrict
            | Dialect::Anthropic
            | Dialect::AnthropicStrict => NameRule::OPENAI,
            Dialect::Gemini | Dialect::GeminiJsonSchema => NameRule::GEMINI,
        }
    }
}

/// A reversible mapping of a set of tool names into what one dialect accepts: a name the
/// dialect accepts stays as it is; another gets the nearest free name that follows the rule
/// (see [`NameRule`]). The map answers both ways, so a host declares the mapped names to the
/// provider and runs the tool the provider's call names.
///
/// The mapping depends only on the set of names, not on their order.
///
/// ```
/// use cy_tools::dialect::{Dialect, NameMap};
///
/// let names = NameMap::new(Dialect::OpenAi, ["read_file", "github.create_issue", "github_create_issue"]);
/// assert_eq!(names.to_dialect("read_file"), Some("read_file"));
/// // Taken by a tool of that very name, so the dotted one gets a hashed name.
/// let mapped = names.to_dialect("github.create_issue").unwrap();
/// assert!(mapped.starts_with("github_create_issue_") && Dialect::OpenAi.name_rule().accepts(mapped));
/// assert_eq!(names.to_tool(mapped), Some("github.create_issue"));
/// assert_eq!(names.to_tool("no_such_tool"), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct NameMap {
    to_dialect: HashMap<String, String>,
    to_tool: HashMap<String, String>,
}

impl NameMap {
    /// Maps `names` into `dialect`'s rule.
    pub fn new<S: AsRef<str>>(dialect: Dialect, names: impl IntoIterator<Item = S>) -> NameMap {
        let rule = dialect.name_rule();
        let names: BTreeSet<String> = names.into_iter().map(|n| n.as_ref().to_string()).collect();
        let mut map = NameMap::default();
        // Names the dialect accepts keep themselves first, so no mapped name can take one.
        for name in names.iter().filter(|n| rule.accepts(n)) {
            map.insert(name, name.clone());
        }
        for name in names.iter().filter(|n| !rule.accepts(n)) {
            let mut candidate = rule.nearest(name);
            let mut salt = 0;
            while map.to_tool.contains_key(&candidate) {
                candidate = rule.with_hash(&rule.nearest(name), name, salt);
                salt += 1;
            }
            map.insert(name, candidate);
        }
        map
    }

    fn insert(&mut self, tool: &str, dialect_name: String) {
        self.to_tool.insert(dialect_name.clone(), tool.to_string());
        self.to_dialect.insert(tool.to_string(), dialect_name);
    }

    /// The name `tool` is declared under, when it is one of the mapped names.
    pub fn to_dialect(&self, tool: &str) -> Option<&str> {
        self.to_dialect.get(tool).map(String::as_str)
    }

    /// The tool a provider's call names, when it names one of the mapped tools.
    pub fn to_tool(&self, dialect_name: &str) -> Option<&str> {
        self.to_tool.get(dialect_name).map(String::as_str)
    }

    /// Whether any name was changed.
    pub fn changes_any(&self) -> bool {
        self.to_dialect.iter().any(|(tool, mapped)| tool != mapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapped_name_follows_the_rule_and_maps_back() {
        let long = format!("server.{}", "x".repeat(140));
        let names = [
            "a.b",
            "a_b",
            "a-b",
            "9lives",
            "ünïcode",
            long.as_str(),
            &long[..129.min(long.len())],
        ];
        for dialect in Dialect::ALL {
            let map = NameMap::new(dialect, names);
            let mut seen = BTreeSet::new();
            for name in names {
                let mapped = map.to_dialect(name).unwrap();
                assert!(dialect.name_rule().accepts(mapped), "{dialect}: {mapped}");
                assert_eq!(map.to_tool(mapped), Some(name), "{dialect}: {name}");
                assert!(seen.insert(mapped.to_string()), "{dialect}: {mapped} twice");
            }
        }
    }

    #[test]
    fn a_name_the_dialect_accepts_is_never_changed_and_order_does_not_matter() {
        let one = NameMap::new(Dialect::OpenAi, ["a.b", "a_b"]);
        let two = NameMap::new(Dialect::OpenAi, ["a_b", "a.b"]);
        assert_eq!(one.to_dialect("a_b"), Some("a_b"));
        assert_eq!(one.to_dialect("a.b"), two.to_dialect("a.b"));
        assert_ne!(one.to_dialect("a.b"), Some("a_b"));
        assert!(one.changes_any());
        assert!(!NameMap::new(Dialect::Mcp, ["a.b", "a_b"]).changes_any());
    }

    #[test]
    fn gemini_wants_a_letter_or_underscore_first() {
        let map = NameMap::new(Dialect::Gemini, ["2fa.code"]);
        assert_eq!(map.to_dialect("2fa.code"), Some("_2fa.code"));
    }
}
