//! The values the sandbox's file operations answer: directory entries, walks and searches.

use serde::{Deserialize, Serialize};

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed out of the sandbox).
    Symlink,
    /// Anything else (socket, device, fifo).
    Other,
}

/// One entry of a directory listing or a walk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirEntryInfo {
    /// Path relative to the listed directory (for a walk: relative to the walk's root, `/`
    /// separated).
    pub path: String,
    /// What it is.
    pub kind: EntryKind,
    /// Size in bytes (files; 0 for others).
    pub size: u64,
}

/// Options of [`Sandbox::walk`](crate::services::Sandbox::walk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// How many levels below the root to descend (1: the root's own entries).
    pub max_depth: usize,
    /// Honour `.gitignore` files (and skip `.git`).
    pub respect_gitignore: bool,
    /// Include entries whose name starts with a dot.
    pub include_hidden: bool,
    /// Stop after this many entries.
    pub max_entries: usize,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            max_depth: usize::MAX,
            respect_gitignore: true,
            include_hidden: false,
            max_entries: 10_000,
        }
    }
}

/// The entries a walk found, in sorted order, and whether it stopped early.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkResult {
    /// Entries, sorted by path.
    pub entries: Vec<DirEntryInfo>,
    /// The walk hit `max_entries` and stopped.
    pub truncated: bool,
}

/// Options of [`Sandbox::search`](crate::services::Sandbox::search).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// A regular expression (Rust `regex` syntax).
    pub pattern: String,
    /// Only files whose path (relative to the search root) matches this glob.
    pub glob: Option<String>,
    /// Match case-insensitively.
    pub case_insensitive: bool,
    /// Stop after this many matching lines.
    pub max_matches: usize,
    /// Honour `.gitignore` files.
    pub respect_gitignore: bool,
    /// Raised by one for each file searched, as the search goes, for progress.
    pub files_searched: Option<super::ProgressCounter>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            pattern: String::new(),
            glob: None,
            case_insensitive: false,
            max_matches: 200,
            respect_gitignore: true,
            files_searched: None,
        }
    }
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchMatch {
    /// File path relative to the search root.
    pub path: String,
    /// 1-based line number.
    pub line_number: u64,
    /// The line, without its line ending (cut to a bounded length).
    pub line: String,
}

/// The matches a search found, in file order, and whether it stopped early.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    /// Matching lines.
    pub matches: Vec<SearchMatch>,
    /// The search hit `max_matches` and stopped.
    pub truncated: bool,
    /// How many files were searched.
    pub files_searched: u64,
}
