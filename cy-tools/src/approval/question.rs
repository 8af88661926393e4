//! How a call is shown to the person asked about it: whole, with every character they could
//! not see made visible, and a call too long to read whole announced as such (its length, a
//! digest and its last part), never cut without a word.
//!
//! Why: what a person approves must be what runs. A run of spaces pushes the tail of a
//! command off the screen, a carriage return or a bidirectional override rewrites what the
//! line seems to say, and a silent cut hides exactly the part an attacker puts last.

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The most characters of arguments shown whole; longer ones are shown by their length,
/// digest, first part and last part.
pub const MAX_SHOWN_CHARS: usize = 2_000;

/// How many characters of the start of arguments too long to show whole are shown.
pub const HEAD_CHARS: usize = 300;

/// How many characters of the end of arguments too long to show whole are shown: the end is
/// where a hidden command would sit.
pub const TAIL_CHARS: usize = 1_000;

/// The shortest run of spaces shown as a count rather than as the spaces themselves.
const SPACE_RUN: usize = 3;

/// `arguments` as compact JSON for a person: characters they could not see are shown by name
/// (`⟨U+202E⟩`, `⟨600 spaces⟩`; JSON already escapes `\n`, `\t` and the other ASCII controls),
/// and a text longer than [`MAX_SHOWN_CHARS`] after that is shown as its length, its SHA-256,
/// its first [`HEAD_CHARS`] and its last [`TAIL_CHARS`] characters, saying how many are left
/// out between them.
///
/// ```
/// use cy_tools::approval::show_arguments;
/// let args = serde_json::json!({"command": format!("echo hi{}; rm -rf x", " ".repeat(600))});
/// assert_eq!(show_arguments(&args), r#"{"command":"echo hi⟨600 spaces⟩; rm -rf x"}"#);
/// ```
pub fn show_arguments(arguments: &Value) -> String {
    let json = arguments.to_string();
    let visible = visible(&json);
    let count = visible.chars().count();
    if count <= MAX_SHOWN_CHARS {
        return visible;
    }
    let head: String = visible.chars().take(HEAD_CHARS).collect();
    let tail: String = visible.chars().skip(count - TAIL_CHARS).collect();
    let digest = Sha256::digest(json.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    format!(
        "arguments too long to show whole ({} bytes of JSON, sha256 {hex}): {head} ⟨{} characters not shown⟩ {tail}",
        json.len(),
        count - HEAD_CHARS - TAIL_CHARS,
    )
}

/// `text` with what a person could not see made visible: runs of three or more spaces
/// as their count, every other character that is not a printing one (controls, other
/// whitespace, invisible formatting such as zero-width spaces and bidirectional overrides) as
/// its code point, and `⟨` itself too, so that nothing in `text` can pose as such a marker.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut spaces = 0usize;
    for c in text.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        flush_spaces(&mut out, &mut spaces);
        if c == '⟨' || is_hidden(c) {
            let _ = write!(out, "⟨U+{:04X}⟩", u32::from(c));
        } else {
            out.push(c);
        }
    }
    flush_spaces(&mut out, &mut spaces);
    out
}

fn flush_spaces(out: &mut String, spaces: &mut usize) {
    if *spaces >= SPACE_RUN {
        let _ = write!(out, "⟨{spaces} spaces⟩");
    } else {
        out.extend(std::iter::repeat_n(' ', *spaces));
    }
    *spaces = 0;
}

/// Characters that show nothing, or move or hide others: controls, whitespace other than the
/// space, and Unicode's invisible formatting characters.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_run_of_spaces_before_a_hidden_command_is_counted_not_printed() {
        let command = format!("echo harmless{}; touch hidden-tail.txt", " ".repeat(600));
        let shown = show_arguments(&json!({ "command": command }));
        assert_eq!(
            shown,
            r#"{"command":"echo harmless⟨600 spaces⟩; touch hidden-tail.txt"}"#
        );
    }

    #[test]
    fn controls_and_invisible_formatting_are_shown_by_code_point() {
        let shown = show_arguments(&json!({"p": "a\r\u{7f}b\u{202e}c\u{200b}d\u{a0}e\u{2028}f"}));
        assert_eq!(
            shown,
            r#"{"p":"a\r⟨U+007F⟩b⟨U+202E⟩c⟨U+200B⟩d⟨U+00A0⟩e⟨U+2028⟩f"}"#
        );
    }

    #[test]
    fn a_marker_written_in_the_arguments_cannot_pose_as_one() {
        let shown = show_arguments(&json!({"p": "⟨600 spaces⟩"}));
        assert_eq!(shown, r#"{"p":"⟨U+27E8⟩600 spaces⟩"}"#);
    }

    #[test]
    fn two_spaces_stay_spaces() {
        assert_eq!(show_arguments(&json!("a  b")), r#""a  b""#);
    }

    #[test]
    fn arguments_too_long_show_length_digest_and_both_ends() {
        let content = format!("{}; touch hidden-tail.txt", "x".repeat(5_000));
        let args = json!({ "content": content });
        let json = args.to_string();
        let shown = show_arguments(&args);
        let digest: String = Sha256::digest(json.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(
            shown.starts_with(&format!(
                "arguments too long to show whole ({} bytes of JSON, sha256 {digest}): {{\"content\":\"xxx",
                json.len()
            )),
            "{shown}"
        );
        assert!(shown.ends_with("xxx; touch hidden-tail.txt\"}"), "{shown}");
        let left_out = json.chars().count() - HEAD_CHARS - TAIL_CHARS;
        assert!(shown.contains(&format!(" ⟨{left_out} characters not shown⟩ ")));
    }

    #[test]
    fn arguments_at_the_limit_are_shown_whole() {
        // `"` + body + `"` is exactly MAX_SHOWN_CHARS characters.
        let args = json!("y".repeat(MAX_SHOWN_CHARS - 2));
        assert_eq!(show_arguments(&args), args.to_string());
        let longer = json!("y".repeat(MAX_SHOWN_CHARS - 1));
        assert!(show_arguments(&longer).starts_with("arguments too long"));
    }
}
