//! `read_file`: a page of a text file, with line numbers.

use cy_tools::services::Sandbox;
use std::fmt::Write as _;

use cy_tools::prelude::*;

use super::text::{cut_line, plural};

/// Lines returned when the model does not say how many.
const DEFAULT_LIMIT: u64 = 2000;
/// Bytes of text returned at most in one call, whatever the limit.
const MAX_OUTPUT: usize = 256 * 1024;
/// First chunk read; each further chunk doubles, up to [`MAX_CHUNK`].
const FIRST_CHUNK: usize = 16 * 1024;
const MAX_CHUNK: usize = 1024 * 1024;
/// How much of the start of a file is checked for NUL bytes.
const BINARY_SNIFF: usize = 8 * 1024;

/// Read a UTF-8 text file from the workspace, with line numbers (`cat -n` style). Reads at most
/// `limit` lines from line `offset`; for a long file, call again with the offset the answer
/// names. Refuses binary files.
#[tool(
    title = "Read file",
    capabilities(env),
    read_only,
    idempotent,
    open_world = false
)]
pub async fn read_file(
    ctx: Ctx<'_>,
    /// Path of the file, relative to the workspace root (or under `/workspace/`).
    path: String,
    /// 1-based number of the first line to return.
    #[arg(default = 1)]
    offset: u64,
    /// How many lines to return at most (default 2000).
    limit: Option<u64>,
) -> Result<String, ToolError> {
    if offset == 0 {
        return Err(ToolError::new(
            "`offset` is 1-based: use 1 for the first line",
        ));
    }
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 {
        return Err(ToolError::new("`limit` must be at least 1"));
    }
    let page = read_page(ctx.env(), &path, offset, limit).await?;
    Ok(page)
}

/// Reads lines `offset..offset+limit` of `path`, chunk by chunk, so the cost follows what is
/// returned (and how far in it starts), not the file's size.
async fn read_page(
    env: &dyn Sandbox,
    path: &str,
    offset: u64,
    limit: u64,
) -> Result<String, ToolError> {
    let mut page = Page {
        out: String::new(),
        offset,
        limit,
        next_line: 1,
        shown: 0,
        more: false,
    };
    let mut pos: u64 = 0;
    let mut chunk_len = FIRST_CHUNK;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let chunk = env.read_range(path, pos, chunk_len).await?;
        if pos == 0 && chunk[..chunk.len().min(BINARY_SNIFF)].contains(&0) {
            return Err(ToolError::new(format!(
                "`{path}` looks like a binary file (it contains NUL bytes); read_file only shows text"
            )));
        }
        let at_eof = chunk.len() < chunk_len;
        pos += chunk.len() as u64;
        chunk_len = (chunk_len * 2).min(MAX_CHUNK);
        carry.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(nl) = memchr::memchr(b'\n', &carry[start..]) {
            let keep_going = page.line(&carry[start..start + nl]);
            start += nl + 1;
            if !keep_going {
                break;
            }
        }
        carry.drain(..start);
        if page.more {
            break;
        }
        if at_eof {
            if !carry.is_empty() {
                // The last line has no newline.
                page.line(&carry);
            }
            break;
        }
    }
    page.finish(path)
}

/// The lines gathered so far.
struct Page {
    out: String,
    offset: u64,
    limit: u64,
    /// Number of the next line to be seen.
    next_line: u64,
    shown: u64,
    /// A line past the page exists.
    more: bool,
}

impl Page {
    /// Takes the next line; false once the page is full (and a further line exists).
    fn line(&mut self, line: &[u8]) -> bool {
        let number = self.next_line;
        self.next_line += 1;
        if number < self.offset {
            return true;
        }
        if self.shown >= self.limit || self.out.len() >= MAX_OUTPUT {
            self.more = true;
            return false;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // Valid UTF-8 is the common case and is checked much faster than a lossy conversion.
        let text = match std::str::from_utf8(line) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(line),
        };
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        let _ = write!(self.out, "{number:>6}\t");
        self.out.push_str(&cut_line(&text));
        self.shown += 1;
        true
    }

    fn finish(mut self, path: &str) -> Result<String, ToolError> {
        let last = self.offset + self.shown.saturating_sub(1);
        if self.more {
            self.out.push_str(&format!(
                "\n[lines {}-{last} shown; the file continues: read on with offset={}]",
                self.offset,
                last + 1
            ));
            return Ok(self.out);
        }
        let total = self.next_line - 1;
        if self.shown == 0 {
            if total == 0 {
                return Ok(format!("`{path}` is empty"));
            }
            return Err(ToolError::new(format!(
                "`{path}` has {}; `offset` {} is past the end",
                plural(total, "line", "lines"),
                self.offset
            )));
        }
        if self.offset > 1 {
            self.out
                .push_str(&format!("\n[lines {}-{last} of {total}]", self.offset));
        }
        Ok(self.out)
    }
}
