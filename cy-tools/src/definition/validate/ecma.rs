//! ECMA-262 regular expressions (JSON Schema's `pattern` syntax) in the `regex` crate's syntax.
//!
//! The two mostly agree. Where they differ, the pattern is translated: `\d`, `\w` and `\s` are
//! ASCII digits, ASCII word characters and ECMA-262's white space, `.` stops at every line
//! terminator, and a character class is read with ECMA-262's rules (`[` and `&&` inside one are
//! plain characters) and written out character by character. Look-around and backreferences
//! have no equivalent in `regex`, whose matching time is linear: `regex` refuses them.

use std::fmt::Write as _;
use std::iter::Peekable;
use std::str::Chars;

/// ECMA-262's `WhiteSpace` and `LineTerminator`, which its `\s` matches.
const WHITE_SPACE: &[(char, char)] = &[
    ('\u{9}', '\u{d}'),
    (' ', ' '),
    ('\u{a0}', '\u{a0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200a}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202f}', '\u{202f}'),
    ('\u{205f}', '\u{205f}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{feff}', '\u{feff}'),
];

/// What ECMA-262's `.` does not match: the line terminators.
pub(super) const LINE_TERMINATORS: &[(char, char)] =
    &[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')];

/// The characters of a class escape's lower-case letter (`d` for `\d` and `\D`).
pub(super) fn escape_ranges(letter: char) -> Option<&'static [(char, char)]> {
    match letter {
        'd' => Some(&[('0', '9')]),
        'w' => Some(&[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')]),
        's' => Some(WHITE_SPACE),
        _ => None,
    }
}

/// A class escape (`\d`, `\W`, ...) as a `regex` class, or `None` for any other letter.
fn class_escape(letter: char) -> Option<String> {
    let ranges = escape_ranges(letter.to_ascii_lowercase())?;
    let mut out = String::from(if letter.is_ascii_uppercase() {
        "[^"
    } else {
        "["
    });
    for (start, end) in ranges {
        push_range(&mut out, *start, *end);
    }
    out.push(']');
    Some(out)
}

/// The pattern in `regex` syntax.
pub(super) fn translate(pattern: &str) -> Result<String, String> {
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
                    push_range(&mut out, control(letter), control(letter));
                } else {
                    // Everything else means the same in both, or `regex` refuses it.
                    out.push('\\');
                    out.push(escaped);
                }
            }
            '[' => Class::parse(&mut chars)?.write(&mut out),
            '.' => {
                out.push_str("[^");
                for (start, end) in LINE_TERMINATORS {
                    push_range(&mut out, *start, *end);
                }
                out.push(']');
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// `\cJ`: the control character of a letter.
fn control(letter: char) -> char {
    char::from(letter as u8 % 32)
}

/// One member of a character class.
#[derive(Clone, Copy)]
pub(super) enum Item {
    /// `a`, or `a-z`.
    Range(char, char),
    /// `\d` and the like, by letter.
    Escape(char),
}

/// A character class, read as ECMA-262 reads it.
pub(super) struct Class {
    pub(super) negated: bool,
    pub(super) items: Vec<Item>,
}

impl Class {
    /// Reads a class after its `[`, up to and with its `]`.
    pub(super) fn parse(chars: &mut Peekable<Chars<'_>>) -> Result<Class, String> {
        let unclosed = || "a character class `[` is never closed".to_string();
        let negated = chars.next_if_eq(&'^').is_some();
        let mut items = Vec::new();
        loop {
            let item = match chars.next() {
                None => return Err(unclosed()),
                Some(']') => break,
                Some(c) => class_item(c, chars)?,
            };
            // `a-z` is a range; a `-` next to a class escape or before `]` is a plain `-`.
            let is_range = chars.peek() == Some(&'-') && {
                let mut ahead = chars.clone();
                ahead.next();
                ahead.peek().is_some_and(|next| *next != ']')
            };
            if !is_range {
                items.push(item);
                continue;
            }
            chars.next();
            let end = class_item(chars.next().ok_or_else(unclosed)?, chars)?;
            match (item, end) {
                (Item::Range(start, _), Item::Range(end, _)) => {
                    if start > end {
                        return Err(format!(
                            "the class range `{start}-{end}` runs backwards; write the smaller character first"
                        ));
                    }
                    items.push(Item::Range(start, end));
                }
                _ => items.extend([item, Item::Range('-', '-'), end]),
            }
        }
        Ok(Class { negated, items })
    }

    /// The class in `regex` syntax, every character as `\x{..}` so that nothing in it can mean
    /// something else there.
    fn write(&self, out: &mut String) {
        if self.items.is_empty() {
            // `[]` matches nothing and `[^]` any character.
            out.push_str(if self.negated {
                r"[\x{0}-\x{10FFFF}]"
            } else {
                r"[^\x{0}-\x{10FFFF}]"
            });
            return;
        }
        out.push_str(if self.negated { "[^" } else { "[" });
        for item in &self.items {
            match item {
                Item::Range(start, end) => push_range(out, *start, *end),
                Item::Escape(letter) => out.push_str(&class_escape(*letter).unwrap_or_default()),
            }
        }
        out.push(']');
    }
}

/// One class member starting with `c`, escapes read as ECMA-262 reads them inside a class.
fn class_item(c: char, chars: &mut Peekable<Chars<'_>>) -> Result<Item, String> {
    if c != '\\' {
        return Ok(Item::Range(c, c));
    }
    let Some(escaped) = chars.next() else {
        return Err("it ends with a lone `\\`".to_string());
    };
    if escape_ranges(escaped.to_ascii_lowercase()).is_some() {
        return Ok(Item::Escape(escaped));
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
            control(chars.next().unwrap_or_default())
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
    Ok(Item::Range(c, c))
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

fn push_range(out: &mut String, start: char, end: char) {
    let _ = write!(out, r"\x{{{:x}}}", u32::from(start));
    if end != start {
        let _ = write!(out, r"-\x{{{:x}}}", u32::from(end));
    }
}
