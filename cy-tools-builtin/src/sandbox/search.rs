//! Regex search over the files below a folder, beneath a view's directory handle.

use cap_std::fs::Dir;
use cy_tools::{
    EntryKind, SearchMatch, SearchOptions, SearchResult, ServiceError, ServiceErrorKind,
    WalkOptions,
};
use globset::{GlobBuilder, GlobMatcher};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, Sink, SinkMatch};

use super::walk::visit;

/// Longest line returned in a match; longer ones are cut with a marker.
const MAX_LINE: usize = 500;

pub(crate) fn search(
    dir: &Dir,
    path: &str,
    options: &SearchOptions,
) -> Result<SearchResult, ServiceError> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(options.case_insensitive)
        .build(&options.pattern)
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "`{}` is not a valid regular expression: {err}; escape special characters such as `(` or `.` with `\\` to match them literally",
                    options.pattern
                ),
            )
        })?;
    let glob = options.glob.as_deref().map(compile_glob).transpose()?;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let walk_options = WalkOptions {
        respect_gitignore: options.respect_gitignore,
        max_entries: usize::MAX,
        ..WalkOptions::default()
    };
    let mut result = SearchResult::default();
    let mut failure = None;
    visit(dir, path, &walk_options, |entry, parent| {
        if entry.kind != EntryKind::File {
            return true;
        }
        if let Some(glob) = &glob
            && !glob.is_match(&entry.path)
        {
            return true;
        }
        let name = match std::path::Path::new(&entry.path).file_name() {
            Some(name) => name.to_owned(),
            None => return true,
        };
        // Opened through the folder's handle: a file swapped for a symlink is still refused
        // if it leads out of the view.
        let Ok(file) = parent.open(&name) else {
            return true;
        };
        result.files_searched += 1;
        let mut sink = Collect {
            path: &entry.path,
            out: &mut result.matches,
            limit: options.max_matches,
        };
        if let Err(err) = searcher.search_file(&matcher, &file.into_std(), &mut sink) {
            failure = Some(err);
            return false;
        }
        if result.matches.len() >= options.max_matches {
            result.truncated = true;
            return false;
        }
        true
    })?;
    if let Some(err) = failure {
        return Err(ServiceError::new(
            ServiceErrorKind::Other,
            format!("the search stopped: {err}"),
        ));
    }
    Ok(result)
}

fn compile_glob(glob: &str) -> Result<GlobMatcher, ServiceError> {
    GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!("`{glob}` is not a valid glob: {err}; use patterns such as `*.rs` or `src/**/*.py`"),
            )
        })
}

struct Collect<'a> {
    path: &'a str,
    out: &'a mut Vec<SearchMatch>,
    limit: usize,
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(
        &mut self,
        _searcher: &grep_searcher::Searcher,
        found: &SinkMatch<'_>,
    ) -> Result<bool, Self::Error> {
        let raw = String::from_utf8_lossy(found.bytes());
        let line = raw.trim_end_matches(['\n', '\r']);
        let line = if line.len() > MAX_LINE {
            let mut cut = MAX_LINE;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}… [line cut at {MAX_LINE} bytes]", &line[..cut])
        } else {
            line.to_string()
        };
        self.out.push(SearchMatch {
            path: self.path.to_string(),
            line_number: found.line_number().unwrap_or(0),
            line,
        });
        Ok(self.out.len() < self.limit)
    }
}
