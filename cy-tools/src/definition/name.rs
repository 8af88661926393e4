//! Tool names: MCP's rule, `^[A-Za-z0-9_.-]{1,128}$` (specification 2025-11-25). Providers with
//! a stricter rule get a tool by another name only through a
//! [`NameMap`](crate::dialect::NameMap), never silently.

/// Longest tool name: MCP's limit.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// Whether `name` is a valid tool name: 1 to 128 ASCII letters, digits, `_`, `-` or `.`, as MCP
/// allows. Usable in `const` context, so a `static` definition with a bad name fails to compile.
///
/// A provider may be stricter (OpenAI and Anthropic take no `.` and at most 64 characters):
/// [`Dialect::name_rule`](crate::dialect::Dialect::name_rule) says, and exporting to it refuses
/// the tool or maps its name.
///
/// ```
/// use cy_tools::definition::is_valid_tool_name;
/// assert!(is_valid_tool_name("read_file"));
/// assert!(is_valid_tool_name("web-search2"));
/// assert!(is_valid_tool_name("github.create_issue"));
/// assert!(!is_valid_tool_name("read file"));
/// assert!(!is_valid_tool_name(""));
/// assert!(!is_valid_tool_name(&"x".repeat(129)));
/// ```
pub const fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_TOOL_NAME_LEN {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if !is_name_byte(bytes[i]) {
            return false;
        }
        i += 1;
    }
    true
}

const fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}

/// The rule, as messages state it.
pub(crate) const NAME_RULE: &str =
    "use 1 to 128 ASCII letters, digits, `_`, `-` or `.` (MCP's rule for tool names)";

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
            .find(|c| !c.is_ascii() || !is_name_byte(*c as u8))
            .unwrap_or(' ');
        format!("it contains {bad:?}")
    };
    Some(format!("invalid tool name `{name}`: {why}; {NAME_RULE}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_name_the_rule() {
        assert_eq!(name_problem("ok_name"), None);
        assert_eq!(name_problem("github.create-issue"), None);
        assert_eq!(
            name_problem("a/b").unwrap(),
            "invalid tool name `a/b`: it contains '/'; use 1 to 128 ASCII letters, digits, `_`, `-` or `.` (MCP's rule for tool names)"
        );
        assert!(name_problem("é").unwrap().contains("it contains 'é'"));
        assert!(
            name_problem(&"x".repeat(129))
                .unwrap()
                .contains("129 bytes long")
        );
        assert!(name_problem("").unwrap().contains("it is empty"));
        assert!(is_valid_tool_name(&"x".repeat(128)));
    }
}
