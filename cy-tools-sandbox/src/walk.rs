//! Walking a folder beneath a view's directory handle, honouring `.gitignore`.
//!
//! Every folder is opened through its parent's handle (never by host path), and symlinks are
//! listed but never followed, so a walk cannot leave the view even if the tree changes under it.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use cy_tools::services::{DirEntryInfo, EntryKind, ServiceError, WalkOptions, WalkResult};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::confine::{io_error, relative};
use crate::fs_ops::kind_of;
use crate::regular::open_nonblocking;

/// Largest `.gitignore` read; a bigger one is ignored rather than read whole.
const MAX_GITIGNORE: u64 = 1024 * 1024;

pub(crate) fn walk(
    dir: &Dir,
    path: &str,
    options: &WalkOptions,
) -> Result<WalkResult, ServiceError> {
    let mut result = WalkResult::default();
    visit(dir, path, options, |entry, _| {
        result.entries.push(entry);
        if result.entries.len() >= options.max_entries {
            result.truncated = true;
            return false;
        }
        true
    })?;
    result.entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(result)
}

/// Calls `found` for every entry below `path` (with the open folder that holds it) until it
/// returns false.
pub(crate) fn visit(
    dir: &Dir,
    path: &str,
    options: &WalkOptions,
    mut found: impl FnMut(DirEntryInfo, &Dir) -> bool,
) -> Result<(), ServiceError> {
    let rel = relative(path)?;
    let start = if rel == Path::new(".") {
        dir.try_clone()
    } else {
        dir.open_dir(&rel)
    }
    .map_err(|err| io_error(path, &err))?;
    let mut ignores: Vec<Gitignore> = Vec::new();
    let mut stack = vec![Level {
        dir: start,
        rel: PathBuf::new(),
        depth: 0,
    }];
    // Depth-first with an explicit stack: a deep tree cannot overflow the thread's stack.
    while let Some(level) = stack.pop() {
        if options.respect_gitignore {
            ignores.truncate(level.depth);
            ignores.push(load_gitignore(&level.dir, &level.rel));
        }
        let Ok(entries) = level.dir.entries() else {
            continue;
        };
        let mut names: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        names.sort();
        let mut children = Vec::new();
        for name in names {
            let text = name.to_string_lossy().into_owned();
            if !options.include_hidden && text.starts_with('.') {
                continue;
            }
            if options.respect_gitignore && text == ".git" {
                continue;
            }
            let Ok(meta) = level.dir.symlink_metadata(&name) else {
                continue;
            };
            let kind = kind_of(&meta);
            let rel = level.rel.join(&name);
            if options.respect_gitignore && ignored(&ignores, &rel, kind == EntryKind::Dir) {
                continue;
            }
            let info = DirEntryInfo {
                path: rel.to_string_lossy().into_owned(),
                kind,
                size: if kind == EntryKind::File {
                    meta.len()
                } else {
                    0
                },
            };
            if !found(info, &level.dir) {
                return Ok(());
            }
            if kind == EntryKind::Dir
                && level.depth + 1 < options.max_depth
                && let Ok(child) = level.dir.open_dir(&name)
            {
                children.push(Level {
                    dir: child,
                    rel,
                    depth: level.depth + 1,
                });
            }
        }
        // Reverse so the first child is visited first.
        stack.extend(children.into_iter().rev());
    }
    Ok(())
}

struct Level {
    dir: Dir,
    rel: PathBuf,
    depth: usize,
}

fn load_gitignore(dir: &Dir, rel: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(rel);
    // Checked on the open handle, so a `.gitignore` swapped for a FIFO is never waited on.
    if let Ok(file) = open_nonblocking(dir, Path::new(".gitignore"))
        && let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() <= MAX_GITIGNORE
        && let Some(text) = read_text(file.into_std())
    {
        for line in text.lines() {
            let _ = builder.add_line(None, line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The text of a small file, at most [`MAX_GITIGNORE`] bytes of it.
fn read_text(file: std::fs::File) -> Option<String> {
    let mut text = String::new();
    file.take(MAX_GITIGNORE).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The deepest `.gitignore` with an opinion decides, as git does.
fn ignored(ignores: &[Gitignore], rel: &Path, is_dir: bool) -> bool {
    for gitignore in ignores.iter().rev() {
        match gitignore.matched(rel, is_dir) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
    }
    false
}
