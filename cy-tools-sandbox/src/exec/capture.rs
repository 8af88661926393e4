//! Capturing a command's output stream up to a cap, with memory bounded however much it writes.

use cy_tools::services::ProgressCounter;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Bytes read from a pipe at a time.
const CHUNK: usize = 32 * 1024;

/// One output stream: the first `limit` bytes, and how many were written in all.
#[derive(Debug)]
pub(crate) struct Capture {
    kept: Vec<u8>,
    total: u64,
    limit: usize,
    lines: Option<ProgressCounter>,
}

impl Capture {
    pub(crate) fn new(limit: usize) -> Self {
        Capture {
            kept: Vec::new(),
            total: 0,
            limit,
            lines: None,
        }
    }

    /// The same capture, raising `lines` by each line the stream writes (kept or not).
    pub(crate) fn counting(mut self, lines: Option<ProgressCounter>) -> Self {
        self.lines = lines;
        self
    }

    /// Keeps what still fits under the cap and counts the rest.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if let Some(lines) = &self.lines {
            lines.add(bytes.iter().filter(|b| **b == b'\n').count() as u64);
        }
        self.total += bytes.len() as u64;
        let room = self.limit.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Whether more was written than kept.
    pub(crate) fn truncated(&self) -> bool {
        self.total > self.kept.len() as u64
    }

    /// The text (lossy UTF-8), with a notice when it was cut.
    pub(crate) fn into_text(self) -> String {
        if !self.truncated() {
            return String::from_utf8_lossy(&self.kept).into_owned();
        }
        let mut text = String::from_utf8_lossy(complete_prefix(&self.kept)).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[output cut: showed the first {} of {} bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]",
            self.kept.len(),
            self.total
        ));
        text
    }
}

/// Reads `reader` to its end into `capture`. Past the cap it keeps reading (so the writer
/// never blocks on a full pipe) but stores nothing. A read error ends the stream.
pub(crate) async fn drain(reader: Option<impl AsyncRead + Unpin>, capture: &mut Capture) {
    let Some(mut reader) = reader else {
        return;
    };
    let mut chunk = vec![0u8; CHUNK];
    loop {
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => capture.push(&chunk[..n]),
        }
    }
}

/// `bytes` without a UTF-8 sequence cut short at its end, so a cut never shows as `�`.
pub(crate) fn complete_prefix(bytes: &[u8]) -> &[u8] {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let byte = bytes[len - back];
        if byte & 0xC0 == 0x80 {
            continue; // a continuation byte: the sequence starts further back
        }
        let needs = match byte {
            0xF0..=0xFF => 4,
            0xE0..=0xEF => 3,
            0xC0..=0xDF => 2,
            _ => 1,
        };
        return if needs > back {
            &bytes[..len - back]
        } else {
            bytes
        };
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_bytes_and_counts_the_rest() {
        let mut capture = Capture::new(5);
        capture.push(b"abc");
        capture.push(b"defgh");
        assert!(capture.truncated());
        assert_eq!(
            capture.into_text(),
            "abcde\n[output cut: showed the first 5 of 8 bytes; write the output to a file and read it in parts, or narrow it with `grep`, `head` or `tail`]"
        );
    }

    #[test]
    fn output_at_the_cap_is_not_cut() {
        let mut capture = Capture::new(3);
        capture.push(b"abc");
        assert!(!capture.truncated());
        assert_eq!(capture.into_text(), "abc");
    }

    #[test]
    fn a_cut_character_is_dropped_whole() {
        assert_eq!(complete_prefix("aé".as_bytes()), "aé".as_bytes());
        assert_eq!(complete_prefix(&"aé".as_bytes()[..2]), b"a");
        assert_eq!(complete_prefix(&"a€".as_bytes()[..3]), b"a");
        assert_eq!(complete_prefix(&"😀".as_bytes()[..3]), b"");
        assert_eq!(complete_prefix("😀".as_bytes()), "😀".as_bytes());
        assert_eq!(complete_prefix(b""), b"");
    }
}
