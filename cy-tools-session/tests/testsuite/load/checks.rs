//! The checks made once every call is answered: the store's records, the files on disk, what
//! the process still holds; and the summary of failures.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::backend::Backend;
use super::process::{children, open_fds};
use super::workload::{clip, tree};

/// One record of the execution log: call id, parent call, tool.
pub type Record = (String, Option<String>, String);

/// A record the store must hold or, when `optional` (a nested call of a code-mode run that
/// failed, which may have stopped before making it), may hold.
#[derive(Clone, Debug)]
pub struct Expected {
    pub record: Record,
    pub optional: bool,
}

/// What one session's log and workspace must be.
pub struct SessionFacts<'a> {
    /// The session's number in the run (which picks its tenant).
    pub n: usize,
    pub id: &'a str,
    pub workspace: &'a Path,
    pub expected: &'a [Expected],
    /// The arguments of each top-level call, by call id.
    pub arguments: &'a [(String, Value)],
    pub files: &'a BTreeMap<String, String>,
}

/// Whether `got` is `expected`, in order, with at most the optional records left out.
pub fn matches(got: &[Record], expected: &[Expected]) -> bool {
    let mut got = got.iter().peekable();
    for e in expected {
        if got.peek() == Some(&&e.record) {
            got.next();
        } else if !e.optional {
            return false;
        }
    }
    got.next().is_none()
}

/// How many records the sessions of a run must leave, at least and at most.
pub fn bounds(sessions: &[SessionFacts<'_>]) -> (usize, usize) {
    let least = sessions
        .iter()
        .map(|s| s.expected.iter().filter(|e| !e.optional).count())
        .sum();
    (least, sessions.iter().map(|s| s.expected.len()).sum())
}

/// The store holds exactly the expected records, session by session, and no others (when
/// this process is its only writer); no tenant reads another's session; the database is sound.
pub async fn store(store: &Backend, sessions: &[SessionFacts<'_>]) -> Vec<String> {
    let mut failures = Vec::new();
    let (least, most) = bounds(sessions);
    for s in sessions {
        match store.read_across(s.n, s.id).await {
            Ok(0) => {}
            Ok(rows) => failures.push(format!(
                "{}: CROSS-TENANT READ: another tenant read {rows} of its rows",
                s.id
            )),
            Err(err) => failures.push(format!("{}: LOG UNREADABLE across tenants: {err}", s.id)),
        }
        let entries = match store.entries(s.n, s.id).await {
            Ok(entries) => entries,
            Err(err) => {
                failures.push(format!("{}: LOG UNREADABLE: {err}", s.id));
                continue;
            }
        };
        let got: Vec<Record> = entries
            .iter()
            .map(|e| (e.call_id.clone(), e.parent_call.clone(), e.tool.clone()))
            .collect();
        if !matches(&got, s.expected) {
            failures.push(format!(
                "{}: LOST OR WRONG RECORDS: {} records, {} expected: {}",
                s.id,
                got.len(),
                s.expected.len(),
                clip(&format!("{got:?}"))
            ));
            continue;
        }
        if let Some(e) = entries.iter().find(|e| e.session_id != s.id) {
            failures.push(format!(
                "{}: LEAK: record {} is under `{}`",
                s.id, e.call_id, e.session_id
            ));
        }
        for (call_id, arguments) in s.arguments {
            let entry = entries.iter().find(|e| &e.call_id == call_id);
            if entry.map(|e| &e.arguments) != Some(arguments) {
                failures.push(format!(
                    "{}: WRONG RECORD: {call_id} holds other arguments",
                    s.id
                ));
            }
        }
    }
    match store.call_count().await {
        Ok((count, alone)) if !alone || (least as u64..=most as u64).contains(&count) => {}
        Ok((count, _)) => failures.push(format!(
            "LOST OR EXTRA RECORDS: the store holds {count} records, expected {least} to {most}"
        )),
        Err(err) => failures.push(format!(
            "LOG UNREADABLE: the store cannot be counted: {err}"
        )),
    }
    match store.integrity_check().await {
        Ok(answer) if answer == "ok" => {}
        other => failures.push(format!("STORE DAMAGED: the integrity check says {other:?}")),
    }
    failures
}

/// Each workspace holds exactly its session's files, and nothing lies outside the workspaces.
pub fn files(dir: &Path, sessions: &[SessionFacts<'_>]) -> Vec<String> {
    let mut failures = Vec::new();
    for s in sessions {
        let got = tree(s.workspace);
        if &got != s.files {
            let mut differ: Vec<&String> = got
                .iter()
                .filter(|(p, c)| s.files.get(*p) != Some(c))
                .map(|(p, _)| p)
                .collect();
            differ.extend(s.files.keys().filter(|p| !got.contains_key(*p)));
            failures.push(format!(
                "{}: the workspace differs from what the session wrote, at {differ:?}",
                s.id
            ));
        }
    }
    let outside: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| {
            !matches!(
                n.as_str(),
                "w" | "sessions.db" | "sessions.db-wal" | "sessions.db-shm"
            )
        })
        .collect();
    if !outside.is_empty() {
        failures.push(format!("LEAK: files outside the workspaces: {outside:?}"));
    }
    let ids: BTreeSet<String> = sessions.iter().map(|s| s.id.to_string()).collect();
    let folders: BTreeSet<String> = names(&dir.join("w")).into_iter().collect();
    if folders != ids {
        failures.push(format!(
            "LEAK: the workspaces folder holds {:?} besides one folder per session",
            folders.difference(&ids).collect::<Vec<_>>()
        ));
    }
    failures
}

fn names(path: &Path) -> Vec<String> {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Once every session is dropped: no child process left, no descriptor left open beyond
/// `fds_before` (those open before the run and those the store keeps).
pub async fn leftovers(fds_before: usize) -> Vec<String> {
    let mut failures = Vec::new();
    let waited = Instant::now();
    // Children are reaped in the background; give that a moment.
    while !children().is_empty() && waited.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let children = children();
    if !children.is_empty() {
        failures.push(format!(
            "PROCESS LEAK: {} child processes left: {}",
            children.len(),
            clip(&format!("{children:?}"))
        ));
    }
    // The runtime's own descriptors (the signal driver's, for one) and the process's code-mode
    // package folder (two handles, made on first use and kept) may open during the run; the
    // store's connections are in `fds_before` already (see `Backend::kept_descriptors`).
    let fds = open_fds();
    if fds > fds_before + 16 {
        failures.push(format!(
            "DESCRIPTOR LEAK: {fds} descriptors open after the run, {fds_before} before; open now: {}",
            clip(&format!("{:?}", super::process::open_fd_targets()))
        ));
    }
    failures
}

/// Marks a failure that followed an earlier one in the same session.
pub const FOLLOW_ON: &str = "(after an earlier failure of its session)";

/// Failures counted by cause (ids and numbers masked), then the first ones in full.
pub fn summary(failures: &[String]) -> String {
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    for failure in failures {
        let line = failure.lines().next().unwrap_or_default();
        let cause: String = line
            .split_once(": ")
            .map_or(line, |(_, rest)| rest)
            .split("; the answer was")
            .next()
            .unwrap_or_default()
            .chars()
            .take(200)
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect();
        *causes.entry(cause).or_default() += 1;
    }
    let mut by_count: Vec<(usize, String)> = causes.into_iter().map(|(c, n)| (n, c)).collect();
    by_count.sort_by(|a, b| b.cmp(a));
    let follow_ons = failures.iter().filter(|f| f.contains(FOLLOW_ON)).count();
    let mut out = format!(
        "{} failures ({follow_ons} of them follow-ons of an earlier failure in the same session), by cause:\n",
        failures.len()
    );
    for (n, cause) in by_count.iter().take(30) {
        out += &format!("{n:>7}  {cause}\n");
    }
    out += "the first ones:\n";
    for failure in failures.iter().filter(|f| !f.contains(FOLLOW_ON)).take(10) {
        out += &format!("{failure}\n");
    }
    out
}

/// Where session `id`'s workspace is under the run's folder.
pub fn workspace(dir: &Path, id: &str) -> PathBuf {
    dir.join("w").join(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> Record {
        (id.to_string(), None, "read_file".to_string())
    }

    #[test]
    fn only_optional_records_may_be_missing() {
        let expected = [
            Expected {
                record: record("a/sdk-1"),
                optional: true,
            },
            Expected {
                record: record("a"),
                optional: false,
            },
        ];
        assert!(matches(&[record("a/sdk-1"), record("a")], &expected));
        assert!(matches(&[record("a")], &expected));
        assert!(!matches(&[record("a/sdk-1")], &expected));
        assert!(!matches(&[record("a"), record("a")], &expected));
        assert!(!matches(&[record("b"), record("a")], &expected));
    }
}
