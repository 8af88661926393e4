//! Regex search over the files below a folder, beneath a view's directory handle.

use cap_std::fs::Dir;
use cy_tools::services::{
    EntryKind, SearchMatch, SearchOptions, SearchResult, ServiceError, ServiceErrorKind,
    WalkOptions,
};
use globset::{GlobBuilder, GlobMatcher};
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, Sink, SinkMatch};

use cy_tools::services::ProgressCounter;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::confine::{io_error, relative};
use crate::regular::{open_nonblocking, special_at};
use crate::walk::visit;

/// Threads a search uses at most.
const MAX_THREADS: usize = 4;

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
    let walk_options = WalkOptions {
        respect_gitignore: options.respect_gitignore,
        max_entries: usize::MAX,
        ..WalkOptions::default()
    };
    let rel = relative(path)?;
    let mut files: Vec<String> = Vec::new();
    visit(dir, path, &walk_options, |entry, _| {
        // Special files (FIFOs, sockets, devices) are skipped like folders: they are never
        // `File` entries.
        let wanted =
            entry.kind == EntryKind::File && glob.as_ref().is_none_or(|g| g.is_match(&entry.path));
        if wanted {
            files.push(entry.path);
        }
        true
    })
    // A special file named as the folder to search is refused for what it is.
    .map_err(|err| special_at(dir, &rel, path).unwrap_or(err))?;
    let root = if rel == std::path::Path::new(".") {
        dir.try_clone()
    } else {
        dir.open_dir(&rel)
    }
    .map_err(|err| io_error(path, &err))?;
    search_files(
        &root,
        &files,
        &matcher,
        options.max_matches,
        options.files_searched.as_ref(),
    )
}

/// The matches of the file at one index of the walk order.
type FileMatches = (usize, Vec<SearchMatch>);

/// Searches `files` (paths below `root`, in walk order) on a few threads. Workers take files
/// in increasing order and stop taking new ones once enough matches are found, so the files
/// searched are always a prefix of the list and the first `max_matches` matches in file order
/// are exactly what a single-threaded search would return.
fn search_files(
    root: &Dir,
    files: &[String],
    matcher: &grep_regex::RegexMatcher,
    max_matches: usize,
    progress: Option<&ProgressCounter>,
) -> Result<SearchResult, ServiceError> {
    let next = AtomicUsize::new(0);
    let found = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, MAX_THREADS)
        .min(files.len().max(1));
    let per_worker: Vec<Result<Vec<FileMatches>, ServiceError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut searcher = SearcherBuilder::new()
                        .line_number(true)
                        .binary_detection(BinaryDetection::quit(0))
                        .build();
                    let mut done = Vec::new();
                    while found.load(Ordering::Relaxed) < max_matches {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file_path) = files.get(i) else {
                            break;
                        };
                        // Opened beneath the root's handle: a file swapped for a symlink is
                        // still refused if it leads out of the view. One swapped for a FIFO or
                        // a device since the walk is skipped, seen on the handle, unread.
                        let Ok(file) = open_nonblocking(root, Path::new(file_path)) else {
                            continue;
                        };
                        if !file.metadata().is_ok_and(|meta| meta.is_file()) {
                            continue;
                        }
                        let mut matches = Vec::new();
                        let mut sink = Collect {
                            path: file_path,
                            out: &mut matches,
                            limit: max_matches,
                        };
                        searcher
                            .search_file(matcher, &file.into_std(), &mut sink)
                            .map_err(|err| {
                                ServiceError::new(
                                    ServiceErrorKind::Other,
                                    format!("the search stopped at `{file_path}`: {err}"),
                                )
                            })?;
                        found.fetch_add(matches.len(), Ordering::Relaxed);
                        done.push((i, matches));
                        if let Some(progress) = progress {
                            progress.add(1);
                        }
                    }
                    Ok(done)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(ServiceError::new(
                        ServiceErrorKind::Other,
                        "the search failed unexpectedly; try a narrower folder or pattern",
                    ))
                })
            })
            .collect()
    });
    let mut searched: Vec<FileMatches> = Vec::new();
    for worker in per_worker {
        searched.extend(worker?);
    }
    searched.sort_by_key(|(i, _)| *i);
    let mut result = SearchResult {
        files_searched: searched.len() as u64,
        ..SearchResult::default()
    };
    for (_, matches) in searched {
        result.matches.extend(matches);
    }
    if result.matches.len() >= max_matches {
        result.matches.truncate(max_matches);
        result.truncated = true;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file the walk listed and that was swapped for a FIFO before the search opened it:
    /// skipped, and the search does not wait for a writer.
    #[test]
    fn a_file_swapped_for_a_fifo_after_the_walk_is_skipped_unread() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.txt"), "needle\n").unwrap();
        let fifo = tmp.path().join("b.txt");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let root = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        let files = vec!["a.txt".to_string(), "b.txt".to_string()];
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let matcher = RegexMatcherBuilder::new().build("needle").unwrap();
            let _ = tx.send(search_files(&root, &files, &matcher, 10, None));
        });
        let result = rx.recv_timeout(std::time::Duration::from_secs(2));
        if result.is_err() {
            // Free the blocked open so the test fails instead of hanging.
            use std::os::unix::fs::OpenOptionsExt as _;
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                .open(&fifo);
            panic!("the search blocked on the FIFO");
        }
        let result = result.unwrap().unwrap();
        assert_eq!(result.files_searched, 1);
        assert_eq!(result.matches.len(), 1);
        assert_eq!(result.matches[0].path, "a.txt");
    }
}
