//! Tool names: `^[a-zA-Z0-9_-]{1,64}$`, what OpenAI, Anthropic and MCP all accept.

/// Longest tool name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Whether `name` is a valid tool name. Usable in `const` context, so a `static` definition with
/// a bad name fails to compile.
///
/// ```
/// use cy_tools::definition::is_valid_tool_name;
/// assert!(is_valid_tool_name("read_file"));
/// assert!(is_valid_tool_name("web-search2"));
/// assert!(!is_valid_tool_name("read file"));
/// assert!(!is_valid_tool_name(""));
/// assert!(!is_valid_tool_name("ns.tool"));
/// ```
pub const fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_TOOL_NAME_LEN {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// Why `name` is not a valid tool name, as a message naming the rule; `None` when it is valid.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    if is_valid_tool_name(name) {
        return None;
    }
    let why = if name.is_empty() {
        "it is empty".to_string()
    } else if name.len() > MAX_TOOL_NAME_LEN {
        format!("it is {} bytes long", name.len())
    } else {
        let bad = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
            .unwrap_or(' ');
        format!("it contains {bad:?}")
    };
    Some(format!(
        "invalid tool name `{name}`: {why}; use 1 to {MAX_TOOL_NAME_LEN} ASCII letters, digits, `_` or `-`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_name_the_rule() {
        assert_eq!(name_problem("ok_name"), None);
        assert_eq!(
            name_problem("a.b").unwrap(),
            "invalid tool name `a.b`: it contains '.'; use 1 to 64 ASCII letters, digits, `_` or `-`"
        );
        assert!(
            name_problem(&"x".repeat(65))
                .unwrap()
                .contains("65 bytes long")
        );
        assert!(name_problem("").unwrap().contains("it is empty"));
        assert!(is_valid_tool_name(&"x".repeat(64)));
    }
}
