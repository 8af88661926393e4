//! Small text helpers the tools share.

/// Longest line shown by the file tools; longer lines are cut with a marker.
pub(crate) const MAX_LINE_CHARS: usize = 2000;

/// Cuts `line` to [`MAX_LINE_CHARS`] characters, saying so.
pub(crate) fn cut_line(line: &str) -> std::borrow::Cow<'_, str> {
    // A line of at most that many bytes has at most that many characters.
    if line.len() <= MAX_LINE_CHARS {
        return std::borrow::Cow::Borrowed(line);
    }
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => std::borrow::Cow::Borrowed(line),
        Some((at, _)) => std::borrow::Cow::Owned(format!(
            "{}… [line cut at {MAX_LINE_CHARS} characters]",
            &line[..at]
        )),
    }
}

/// `1 byte`, `12 bytes`, `3.4 KiB`, `5.0 MiB`.
pub(crate) fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    match bytes {
        1 => "1 byte".to_string(),
        0..1024 => format!("{bytes} bytes"),
        _ if (bytes as f64) < KIB * KIB => format!("{:.1} KiB", bytes as f64 / KIB),
        _ if (bytes as f64) < KIB * KIB * KIB => format!("{:.1} MiB", bytes as f64 / KIB / KIB),
        _ => format!("{:.1} GiB", bytes as f64 / KIB / KIB / KIB),
    }
}

/// `1 line`, `3 lines`.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_cuts() {
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(1023), "1023 bytes");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(5 * 1024 * 1024), "5.0 MiB");
        assert_eq!(plural(1, "match", "matches"), "1 match");
        assert_eq!(plural(0, "match", "matches"), "0 matches");
        let long = "x".repeat(2500);
        assert!(cut_line(&long).ends_with("… [line cut at 2000 characters]"));
        assert_eq!(cut_line("short"), "short");
    }
}
