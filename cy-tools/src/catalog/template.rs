//! `UriTemplate`: the URIs one resource answers, as an RFC 6570 template of simple `{name}`
//! expressions (`test://template/{id}/data`), or one fixed URI (a template without any).

use std::fmt;

/// The URIs a resource answers: a fixed URI, or a template whose `{name}` expressions each
/// match one non-empty path segment (no `/`, `?` or `#`), percent-decoded.
///
/// Only RFC 6570's simple expansion is taken: its operators (`{+path}`, `{?query}`, ...) and
/// lists (`{a,b}`) are refused with the reason, so a template never matches other URIs than
/// its author meant.
///
/// ```
/// use cy_tools::catalog::UriTemplate;
///
/// let template = UriTemplate::parse("test://template/{id}/data").unwrap();
/// assert_eq!(template.variables().collect::<Vec<_>>(), ["id"]);
/// let vars = template.matches("test://template/12%203/data").unwrap();
/// assert_eq!(vars, [("id".to_string(), "12 3".to_string())]);
/// assert!(template.matches("test://template/1/2/data").is_none());
/// assert!(template.matches("test://template//data").is_none());
///
/// let err = UriTemplate::parse("file:///{+path}").unwrap_err();
/// assert!(err.contains("`{+path}`"), "{err}");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

impl UriTemplate {
    /// Parses `text`.
    ///
    /// # Errors
    /// What is wrong and how to write it: an unclosed or stray brace, an empty or invalid
    /// variable name, an operator or a list, a name used twice, two expressions side by side.
    pub fn parse(text: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                None => {
                    parts.push(Part::Literal(rest.to_string()));
                    break;
                }
                Some(at) if rest.as_bytes()[at] == b'}' => {
                    return Err(format!(
                        "the URI template `{text}` has a `}}` without its `{{`: write variables as `{{name}}`"
                    ));
                }
                Some(at) => {
                    if at > 0 {
                        parts.push(Part::Literal(rest[..at].to_string()));
                    }
                    let Some(len) = rest[at..].find('}') else {
                        return Err(format!(
                            "the URI template `{text}` has a `{{` that is never closed: write variables as `{{name}}`"
                        ));
                    };
                    let name = &rest[at + 1..at + len];
                    check_variable(text, name)?;
                    if matches!(parts.last(), Some(Part::Variable(_))) {
                        return Err(format!(
                            "the URI template `{text}` has two variables side by side, so where one ends is ambiguous: put a literal between them, such as `{{a}}-{{b}}`"
                        ));
                    }
                    if parts.iter().any(|p| *p == Part::Variable(name.to_string())) {
                        return Err(format!(
                            "the URI template `{text}` names `{{{name}}}` twice: give each variable its own name"
                        ));
                    }
                    parts.push(Part::Variable(name.to_string()));
                    rest = &rest[at + len + 1..];
                }
            }
        }
        if text.is_empty() {
            return Err(
                "the resource URI is empty: give one such as `file:///notes.md`".to_string(),
            );
        }
        Ok(UriTemplate {
            text: text.to_string(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether it has variables (a template) or not (one fixed URI).
    pub fn is_template(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Variable(_)))
    }

    /// The variables' names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values in `uri`, percent-decoded, when it is one of the URIs this
    /// template answers (a fixed URI matches itself only, with no values).
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut values = Vec::new();
        let mut rest = uri;
        for (index, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(literal) => rest = rest.strip_prefix(literal.as_str())?,
                Part::Variable(name) => {
                    // The value runs to the next literal (a variable never follows a variable)
                    // or, last, to the end; it is one segment either way.
                    let end = match self.parts.get(index + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    if raw.is_empty() || raw.contains(['/', '?', '#']) {
                        return None;
                    }
                    values.push((name.clone(), percent_decode(raw)?));
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(values)
    }
}

fn check_variable(text: &str, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!(
            "the URI template `{text}` has an empty `{{}}`: name the variable, as in `{{id}}`"
        ));
    }
    if let Some(op) = name.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c)) {
        return Err(format!(
            "the URI template `{text}` uses `{{{name}}}`: the operator `{op}` is not supported; use simple variables (`{{id}}`), each matching one path segment"
        ));
    }
    if name.contains(',') || name.contains(['*', ':']) {
        return Err(format!(
            "the URI template `{text}` uses `{{{name}}}`: lists and modifiers are not supported; use one simple variable per expression, as in `{{id}}`"
        ));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(format!(
            "the URI template `{text}` has the variable `{{{name}}}`: a variable name is letters, digits and `_` (it names an argument of the resource's function)"
        ));
    }
    Ok(())
}

/// `%20` to a space; `None` for a malformed escape or bytes that are not UTF-8.
fn percent_decode(raw: &str) -> Option<String> {
    if !raw.contains('%') {
        return Some(raw.to_string());
    }
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = raw.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UriTemplate").field(&self.text).finish()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::UriTemplate;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template).unwrap().matches(uri)
    }

    #[test]
    fn fixed_uris_match_themselves_only() {
        assert_eq!(
            vars("test://static-text", "test://static-text"),
            Some(vec![])
        );
        assert_eq!(vars("test://static-text", "test://static-text2"), None);
        assert!(!UriTemplate::parse("test://a").unwrap().is_template());
    }

    #[test]
    fn variables_take_one_segment() {
        let got = vars("db://{table}/rows/{id}.json", "db://users/rows/42.json").unwrap();
        assert_eq!(
            got,
            [
                ("table".to_string(), "users".to_string()),
                ("id".to_string(), "42".to_string())
            ]
        );
        assert_eq!(vars("x://{id}", "x://a/b"), None);
        assert_eq!(vars("x://{id}", "x://a?b"), None);
        assert_eq!(vars("x://{id}/end", "x://a/end/more"), None);
        assert_eq!(vars("x://{id}", "x://%zz"), None);
        assert_eq!(vars("x://{id}", "x://%ff"), None);
    }

    #[test]
    fn malformed_templates_say_how_to_write_them() {
        for (bad, says) in [
            ("x://{id", "never closed"),
            ("x://id}", "without its"),
            ("x://{}", "empty"),
            ("x://{a}{b}", "side by side"),
            ("x://{a}/{a}", "twice"),
            ("x://{?q}", "operator `?`"),
            ("x://{a,b}", "lists"),
            ("x://{a-b}", "letters, digits"),
            ("", "empty"),
        ] {
            let err = UriTemplate::parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
