//! Reading newline-delimited input one line at a time, in bounded memory.
//!
//! A line is gathered up to [`MAX_LINE`] bytes; one that grows past it is dropped as it
//! arrives, piece by piece, so a peer sending a huge line (or never a newline) cannot make the
//! server buffer it.

use tokio::io::{AsyncBufRead, AsyncBufReadExt as _};

/// Longest line read: `rmcp`'s own cap for its stdio transport, so what that transport would
/// take is taken here too.
pub(super) const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Capacity a line buffer keeps between lines; a bigger one (left by a big message) is given
/// back to the allocator.
const KEPT_CAPACITY: usize = 1024 * 1024;

/// What the next read found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line<'a> {
    /// A whole line, without its newline.
    Whole(&'a [u8]),
    /// A line longer than [`MAX_LINE`]: its start was dropped, and the rest will be as it
    /// arrives, up to and including its newline.
    TooLong,
    /// The input ended. Bytes after the last newline are dropped, as `rmcp` does: a message
    /// without its newline is incomplete.
    End,
}

/// Lines of `input`, each at most `max` bytes long.
pub(super) struct Lines<R> {
    input: R,
    max: usize,
    line: Vec<u8>,
    /// Dropping the rest of a line too long to keep.
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> Lines<R> {
    pub(super) fn new(input: R, max: usize) -> Self {
        Lines {
            input,
            max,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// The next line.
    ///
    /// # Errors
    /// Reading the input failed.
    pub(super) async fn next(&mut self) -> std::io::Result<Line<'_>> {
        if self.line.capacity() > KEPT_CAPACITY {
            self.line = Vec::new();
        }
        self.line.clear();
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                if !self.line.is_empty() || self.skipping {
                    tracing::debug!("the input ended in the middle of a line, which is dropped");
                }
                return Ok(Line::End);
            }
            let newline = memchr::memchr(b'\n', available);
            let taken = newline.map_or(available.len(), |at| at + 1);
            if self.skipping {
                self.input.consume(taken);
                if newline.is_some() {
                    self.skipping = false;
                }
                continue;
            }
            let body = newline.map_or(available, |at| &available[..at]);
            if self.line.len() + body.len() > self.max {
                self.line.clear();
                self.skipping = newline.is_none();
                self.input.consume(taken);
                return Ok(Line::TooLong);
            }
            self.line.extend_from_slice(body);
            self.input.consume(taken);
            if newline.is_some() {
                return Ok(Line::Whole(&self.line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<String> {
        let mut lines = Lines::new(input, max);
        let mut out = Vec::new();
        loop {
            match lines.next().await.unwrap() {
                Line::Whole(line) => out.push(String::from_utf8_lossy(line).into_owned()),
                Line::TooLong => out.push("<too long>".to_string()),
                Line::End => return out,
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_and_long_ones_dropped_whole() {
        assert_eq!(all(b"a\nbb\n\ncc", 2).await, ["a", "bb", ""]);
        assert_eq!(
            all(b"abc\nde\nfghij\nk\n", 2).await,
            ["<too long>", "de", "<too long>", "k"]
        );
        // Cut within the reader's buffer: a line reported too long once, then skipped.
        let long = format!("{}\nok\n", "x".repeat(100_000));
        let reader = tokio::io::BufReader::with_capacity(16, long.as_bytes());
        let mut lines = Lines::new(reader, 10);
        assert_eq!(lines.next().await.unwrap(), Line::TooLong);
        assert_eq!(lines.next().await.unwrap(), Line::Whole(b"ok"));
        assert_eq!(lines.next().await.unwrap(), Line::End);
    }
}
