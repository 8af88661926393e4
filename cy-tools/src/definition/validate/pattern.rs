//! `pattern` and `patternProperties`: an ECMA-262 regular expression, translated for the `regex`
//! crate (see [`ecma`](super::ecma)). Patterns made of one class repeated over the whole string
//! (`^[a-z0-9_]{1,64}$`, `^\d+$`), the usual shape in tool schemas, are matched by counting
//! characters instead, which is several times cheaper than a regex search on short strings.

use std::iter::Peekable;
use std::str::Chars;

use regex::Regex;

use super::ecma::{self, Class, Item, LINE_TERMINATORS};

/// A compiled `pattern`, with its source for messages.
#[derive(Debug)]
pub(super) struct Pattern {
    matcher: Matcher,
    source: String,
}

#[derive(Debug)]
enum Matcher {
    Regex(Regex),
    Run(ClassRun),
}

impl Pattern {
    /// Compiles an ECMA-262 pattern, or says why it cannot be.
    pub(super) fn new(source: &str) -> Result<Pattern, String> {
        let translated = ecma::translate(source)?;
        // Compiled even when a class run will match, so a pattern `regex` refuses is refused.
        let regex = Regex::new(&translated).map_err(|err| reason(&err))?;
        let matcher = match ClassRun::of(source) {
            Some(run) => Matcher::Run(run),
            None => Matcher::Regex(regex),
        };
        Ok(Pattern {
            matcher,
            source: source.to_string(),
        })
    }

    /// Whether the pattern matches somewhere in `text` (patterns are not implicitly anchored).
    pub(super) fn is_match(&self, text: &str) -> bool {
        match &self.matcher {
            Matcher::Regex(regex) => regex.is_match(text),
            Matcher::Run(run) => run.is_match(text),
        }
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

/// `^C{min,max}$` for one class `C`: every character in (or, negated, out of) `ranges`, and
/// between `min` and `max` of them.
#[derive(Debug)]
struct ClassRun {
    ranges: Box<[(char, char)]>,
    negated: bool,
    min: usize,
    max: Option<usize>,
}

impl ClassRun {
    /// The run `source` is, if it is one.
    fn of(source: &str) -> Option<ClassRun> {
        let mut chars = source.chars().peekable();
        if chars.next()? != '^' {
            return None;
        }
        let (ranges, negated) = match chars.next()? {
            '[' => {
                let class = Class::parse(&mut chars).ok()?;
                let mut ranges = Vec::new();
                for item in &class.items {
                    match item {
                        Item::Range(start, end) => ranges.push((*start, *end)),
                        // A negated escape inside a class (`[\D]`) is left to the regex.
                        Item::Escape(letter) if letter.is_ascii_lowercase() => {
                            ranges.extend_from_slice(ecma::escape_ranges(*letter)?);
                        }
                        Item::Escape(_) => return None,
                    }
                }
                (ranges, class.negated)
            }
            '\\' => {
                let letter = chars.next()?;
                let ranges = ecma::escape_ranges(letter.to_ascii_lowercase())?;
                (ranges.to_vec(), letter.is_ascii_uppercase())
            }
            '.' => (LINE_TERMINATORS.to_vec(), true),
            _ => return None,
        };
        let (min, max) = quantifier(&mut chars)?;
        // A lazy quantifier matches the same whole strings.
        chars.next_if_eq(&'?');
        if chars.next()? != '$' || chars.next().is_some() {
            return None;
        }
        Some(ClassRun {
            ranges: ranges.into_boxed_slice(),
            negated,
            min,
            max,
        })
    }

    fn is_match(&self, text: &str) -> bool {
        let mut count = 0;
        for c in text.chars() {
            let inside = self
                .ranges
                .iter()
                .any(|(start, end)| *start <= c && c <= *end);
            if inside == self.negated {
                return false;
            }
            count += 1;
            if self.max.is_some_and(|max| count > max) {
                return false;
            }
        }
        count >= self.min
    }
}

/// `+`, `*` or `{m}`, `{m,}`, `{m,n}`, as a count range.
fn quantifier(chars: &mut Peekable<Chars<'_>>) -> Option<(usize, Option<usize>)> {
    let number = |chars: &mut Peekable<Chars<'_>>| {
        let mut digits = String::new();
        while let Some(digit) = chars.next_if(char::is_ascii_digit) {
            digits.push(digit);
        }
        digits.parse::<usize>().ok()
    };
    match chars.next()? {
        '+' => Some((1, None)),
        '*' => Some((0, None)),
        '{' => {
            let min = number(chars)?;
            let max = if chars.next_if_eq(&',').is_some() {
                if chars.peek() == Some(&'}') {
                    None
                } else {
                    Some(number(chars)?)
                }
            } else {
                Some(min)
            };
            (chars.next()? == '}').then_some((min, max))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{ClassRun, Pattern};

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
        assert!(matches(r"x\d", "ax1"));
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
        assert!(matches(r"^[\D]$", "a"));
    }

    #[test]
    fn whole_string_runs_of_one_class_are_counted() {
        for pattern in [
            r"^[a-z]+$",
            r"^\d{2,3}$",
            r"^[^\s]*$",
            "^.{1,}$",
            "^[A-Z_]{2}?$",
        ] {
            assert!(ClassRun::of(pattern).is_some(), "{pattern}");
        }
        for pattern in ["^[a-z]+", "[a-z]+$", "^[a-z]+x$", r"^[\D]+$", "^a+$"] {
            assert!(ClassRun::of(pattern).is_none(), "{pattern}");
        }
        assert!(matches(r"^\d{2,3}$", "12"));
        assert!(!matches(r"^\d{2,3}$", "1234"));
        assert!(!matches(r"^\d{2,3}$", "1"));
        assert!(matches(r"^[^\s]*$", ""));
        assert!(!matches(r"^[^\s]*$", "a b"));
        assert!(!matches("^.{1,}$", "a\nb"));
        assert!(matches("^[A-Z_]{2}?$", "A_"));
    }

    #[test]
    fn unsupported_patterns_say_why() {
        let err = Pattern::new("^(?=a)a").unwrap_err();
        assert!(err.contains("look-around"), "{err}");
        let err = Pattern::new(r"(a)\1").unwrap_err();
        assert!(err.contains("backreferences"), "{err}");
        assert!(Pattern::new("[a").unwrap_err().contains("never closed"));
        assert!(Pattern::new("[z-a]").unwrap_err().contains("backwards"));
        assert!(Pattern::new("^[a-z]{3,1}$").is_err());
    }
}
