//! `pattern` and `patternProperties`: JSON Schema writes regular expressions in ECMA-262 syntax,
//! which the `regex` crate mostly shares. Where the meaning differs, the pattern is translated:
//! `\d`, `\w` and `\s` are ASCII digits, ASCII word characters and ECMA-262's white space, `.`
//! stops at every line terminator, and a character class is read with ECMA-262's rules (`[` and
//! `&&` inside one are plain characters) and written out character by character. Look-around
//! and backreferences have no equivalent in `regex`, whose matching time is linear: a pattern
//! using them does not compile.

use std::fmt::Write as _;
use std::iter::Peekable;
use std::str::Chars;

use regex::Regex;

/// A compiled `pattern`, with its source for messages.
#[derive(Debug)]
pub(super) struct Pattern {
    regex: Regex,
    source: String,
}

impl Pattern {
    /// Compiles an ECMA-262 pattern, or says why it cannot be.
    pub(super) fn new(source: &str) -> Result<Pattern, String> {
        let translated = translate(source)?;
        let regex = Regex::new(&translated).map_err(|err| reason(&err))?;
        Ok(Pattern {
            regex,
            source: source.to_string(),
        })
    }

    /// Whether the pattern matches somewhere in `text` (patterns are not implicitly anchored).
    pub(super) fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The pattern as the schema wrote it.
    pub(super) fn source(&self) -> &str {
        &self.source
    }
}

/// The one line of a `regex` error that says what is wrong (the rest repeats the pattern).
fn reason(err: &regex::Error) -> String {
    let text = err.to_string();
    text.lines()
        .find_map(|line| line.strip_prefix("error: "))
        .unwrap_or(text.lines().last().unwrap_or_default())
        .trim()
        .to_string()
}

/// ECMA-262's `WhiteSpace` and `LineTerminator`, which its `\s` matches.
const WHITE_SPACE: &[(u32, u32)] = &[
    (0x09, 0x0d),
    (0x20, 0x20),
    (0xa0, 0xa0),
    (0x1680, 0x1680),
    (0x2000, 0x200a),
    (0x2028, 0x2029),
    (0x202f, 0x202f),
    (0x205f, 0x205f),
    (0x3000, 0x3000),
    (0xfeff, 0xfeff),
];

/// ECMA-262's `.`: anything but a line terminator.
const DOT: &str = r"[^\n\r\x{2028}\x{2029}]";

/// A class escape (`\d`, `\W`, ...) as a `regex` class, or `None` for any other letter.
fn class_escape(letter: char) -> Option<String> {
    let (negated, body) = match letter {
        'd' => (false, "0-9".to_string()),
        'D' => (true, "0-9".to_string()),
        'w' => (false, "A-Za-z0-9_".to_string()),
        'W' => (true, "A-Za-z0-9_".to_string()),
        's' | 'S' => {
            let mut body = String::new();
            for (start, end) in WHITE_SPACE {
                let _ = write!(body, r"\x{{{start:x}}}-\x{{{end:x}}}");
            }
            (letter == 'S', body)
        }
        _ => return None,
    };
    Some(format!("[{}{body}]", if negated { "^" } else { "" }))
}

/// The pattern in `regex` syntax.
fn translate(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    return Err("it ends with a lone `\\`".to_string());
                };
                if let Some(class) = class_escape(escaped) {
                    out.push_str(&class);
                } else if escaped == 'c' && chars.peek().is_some_and(char::is_ascii_alphabetic) {
                    let letter = chars.next().unwrap_or_default();
                    push_char(&mut out, char::from(letter as u8 % 32));
                } else {
                    // Everything else means the same in both, or `regex` refuses it.
                    out.push('\\');
                    out.push(escaped);
                }
            }
            '[' => translate_class(&mut chars, &mut out)?,
            '.' => out.push_str(DOT),
            other => out.push(other),
        }
    }
    Ok(out)
}

/// One member of a character class.
enum Atom {
    Char(char),
    /// `\d` and the like, as a nested class.
    Class(String),
}

/// Reads a class after its `[` and writes it with every character as `\x{..}`, so nothing in it
/// can mean something else to `regex`.
fn translate_class(chars: &mut Peekable<Chars<'_>>, out: &mut String) -> Result<(), String> {
    let negated = chars.next_if_eq(&'^').is_some();
    let mut items = String::new();
    loop {
        let atom = match chars.next() {
            None => return Err("a character class `[` is never closed".to_string()),
            Some(']') => break,
            Some(c) => class_atom(c, chars)?,
        };
        // `a-z` is a range; a `-` next to a class escape or before `]` is a plain `-`.
        let is_range = chars.peek() == Some(&'-') && {
            let mut ahead = chars.clone();
            ahead.next();
            ahead.peek().is_some_and(|next| *next != ']')
        };
        if !is_range {
            push_atom(&mut items, &atom);
            continue;
        }
        chars.next();
        let end = match chars.next() {
            Some(c) => class_atom(c, chars)?,
            None => return Err("a character class `[` is never closed".to_string()),
        };
        match (&atom, &end) {
            (Atom::Char(start), Atom::Char(end)) => {
                if start > end {
                    return Err(format!(
                        "the class range `{start}-{end}` runs backwards; write the smaller character first"
                    ));
                }
                push_char(&mut items, *start);
                items.push('-');
                push_char(&mut items, *end);
            }
            _ => {
                push_atom(&mut items, &atom);
                push_char(&mut items, '-');
                push_atom(&mut items, &end);
            }
        }
    }
    match (items.is_empty(), negated) {
        // `[]` matches nothing and `[^]` any character.
        (true, false) => out.push_str(r"[^\x{0}-\x{10FFFF}]"),
        (true, true) => out.push_str(r"[\x{0}-\x{10FFFF}]"),
        (false, _) => {
            out.push('[');
            if negated {
                out.push('^');
            }
            out.push_str(&items);
            out.push(']');
        }
    }
    Ok(())
}

/// One class member starting with `c`, escapes read as ECMA-262 reads them inside a class.
fn class_atom(c: char, chars: &mut Peekable<Chars<'_>>) -> Result<Atom, String> {
    if c != '\\' {
        return Ok(Atom::Char(c));
    }
    let Some(escaped) = chars.next() else {
        return Err("it ends with a lone `\\`".to_string());
    };
    if let Some(class) = class_escape(escaped) {
        return Ok(Atom::Class(class));
    }
    let c = match escaped {
        'b' => '\u{8}',
        't' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        'r' => '\r',
        '0' if !chars.peek().is_some_and(char::is_ascii_digit) => '\0',
        'c' if chars.peek().is_some_and(char::is_ascii_alphabetic) => {
            char::from(chars.next().unwrap_or_default() as u8 % 32)
        }
        'x' => hex_char(chars, Some(2)).unwrap_or('x'),
        'u' if chars.peek() == Some(&'{') => {
            chars.next();
            let c = hex_char(chars, None);
            if chars.next() != Some('}') {
                return Err("a `\\u{...}` escape is never closed".to_string());
            }
            c.ok_or("a `\\u{...}` escape does not name a character")?
        }
        'u' => hex_char(chars, Some(4)).ok_or(
            "a `\\u` escape does not name a character (surrogate halves are not supported)",
        )?,
        '1'..='9' => {
            return Err("a class holds a backreference or octal escape, which is not supported; write the character itself".to_string());
        }
        other => other,
    };
    Ok(Atom::Char(c))
}

/// Exactly `digits` hex digits (or, with `None`, as many as there are) as a character.
fn hex_char(chars: &mut Peekable<Chars<'_>>, digits: Option<usize>) -> Option<char> {
    let mut ahead = chars.clone();
    let mut value = 0_u32;
    let mut count = 0;
    while digits.is_none_or(|d| count < d) {
        let Some(digit) = ahead.peek().and_then(|c| c.to_digit(16)) else {
            break;
        };
        ahead.next();
        value = value.checked_mul(16)?.checked_add(digit)?;
        count += 1;
    }
    if count == 0 || digits.is_some_and(|d| count != d) {
        return None;
    }
    *chars = ahead;
    char::from_u32(value)
}

fn push_char(out: &mut String, c: char) {
    let _ = write!(out, r"\x{{{:x}}}", u32::from(c));
}

fn push_atom(out: &mut String, atom: &Atom) {
    match atom {
        Atom::Char(c) => push_char(out, *c),
        Atom::Class(class) => out.push_str(class),
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn matches(pattern: &str, text: &str) -> bool {
        Pattern::new(pattern).unwrap().is_match(text)
    }

    #[test]
    fn ecma_classes_are_ascii() {
        assert!(matches(r"^\d+$", "123"));
        assert!(!matches(r"^\d+$", "١٢٣"));
        assert!(matches(r"^\w+$", "a_1"));
        assert!(!matches(r"^\w+$", "é"));
        assert!(matches(r"^\s$", "\u{feff}"));
        assert!(!matches(r"^.$", "\r"));
        assert!(matches(r"^[\w.-]+$", "a.b-c"));
        assert!(matches(r"^[^\d]+$", "abc"));
        assert!(!matches(r"^[^\d]+$", "a1"));
    }

    #[test]
    fn class_syntax_is_read_as_ecma_does() {
        assert!(matches(r"^[[]$", "["));
        assert!(matches(r"^[a&&b]+$", "a&b"));
        assert!(matches(r"^[\w-]+$", "a-b"));
        assert!(matches(r"^[a-]$", "-"));
        assert!(!matches(r"^[]$", ""));
        assert!(matches(r"^[^]$", "\n"));
        assert!(matches(r"^[\b]$", "\u{8}"));
        assert!(matches(r"^[\x41-\u005A]+$", "AZ"));
    }

    #[test]
    fn unsupported_patterns_say_why() {
        let err = Pattern::new("^(?=a)a").unwrap_err();
        assert!(err.contains("look-around"), "{err}");
        let err = Pattern::new(r"(a)\1").unwrap_err();
        assert!(err.contains("backreferences"), "{err}");
        assert!(Pattern::new("[a").unwrap_err().contains("never closed"));
        assert!(Pattern::new("[z-a]").unwrap_err().contains("backwards"));
    }
}
