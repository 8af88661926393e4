//! What a [`RemoteSandbox`](super::RemoteSandbox) and the control server say to each other.
//!
//! `POST /v1/sessions/{workspace}/sandbox` with `Authorization: Bearer <token>` and a
//! [`SandboxRequest`] as JSON: the operation, and for a child's narrower view the folder it is
//! scoped to. A done operation answers `200` with its value as JSON (the [`SandboxOp`] variant
//! says which); a refused one answers `422` with an
//! [`ErrorReply`](crate::executor::wire::ErrorReply) carrying the local sandbox's own message
//! and kind, so a model reads the same text whichever sandbox its session has. The other
//! statuses are the execute endpoint's (400, 401, 408, 413, 429, 500), and `503` when the
//! server keeps its most workspace views and none can make room.
//!
//! Several read-only operations can share one exchange: a [`SandboxOp::Batch`] of
//! [`SandboxRequest`]s (each with its own scope) answers `200` with a [`BatchReply`], one
//! [`BatchResult`] per operation in order, each the value or the error that operation alone
//! would have answered. Only [`SandboxOp::is_batchable`] operations go in a batch, at most
//! [`MAX_BATCH_OPS`] of them, reading at most [`MAX_BATCH_READ_BYTES`] in all; any other batch
//! is refused whole with `400`, as a server from before batches refuses the unknown `batch`
//! kind, which tells a client to send its operations one by one.
//!
//! File contents travel as base64 in chunks the client cuts to fit the server's body limit:
//! a large read is a [`SandboxOp::Read`] then [`SandboxOp::ReadRange`]s, a large write is
//! [`SandboxOp::Upload`]s into a staging file then a [`SandboxOp::Commit`] that renames it into
//! place, atomically, as a local write does.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use cy_tools::services::{
    ExecOptions, ResourceLimits, SearchOptions, ServiceError, ServiceErrorKind, WalkOptions,
};
use serde::{Deserialize, Serialize};

/// The path of the sandbox endpoint for workspace `name`.
#[cfg(feature = "client")]
pub(crate) fn sandbox_path(name: &str) -> String {
    format!("/v1/sessions/{name}/sandbox")
}

/// Largest range the server reads for one request, so no reply holds more than this in memory.
pub const MAX_RANGE_BYTES: usize = 4 * 1024 * 1024;

/// One request to the sandbox endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxRequest {
    /// The folder of the workspace a narrower (child's) view is rooted at; absent, the whole
    /// workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// What to do.
    pub op: SandboxOp,
}

/// An operation of the sandbox endpoint, one per [`Sandbox`](cy_tools::services::Sandbox) and
/// [`ProcessTable`](cy_tools::services::ProcessTable) method.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[allow(missing_docs)]
pub enum SandboxOp {
    /// The first chunk of a whole-file read, refused as a local `read` refuses (a file over
    /// the whole-read limit, a folder, a FIFO). Answers [`Chunk`] with the file's size.
    Read { path: String, max_len: usize },
    /// Answers [`Chunk`].
    ReadRange {
        path: String,
        offset: u64,
        max_len: usize,
    },
    /// A whole small file. Answers `null`.
    Write {
        path: String,
        data: String,
        durable: bool,
    },
    /// Bytes of a large write at `offset` of staging file `upload`. Answers `null`.
    Upload {
        upload: String,
        offset: u64,
        data: String,
    },
    /// Renames staging file `upload` to `path`, as a write. Answers `null`.
    Commit {
        upload: String,
        path: String,
        durable: bool,
    },
    /// Removes staging file `upload` after a failed write. Answers `null`.
    Abandon { upload: String },
    /// Answers `null`.
    Remove { path: String },
    /// Answers a [`DirEntryInfo`](cy_tools::services::DirEntryInfo).
    Stat { path: String },
    /// Answers a list of [`DirEntryInfo`](cy_tools::services::DirEntryInfo).
    ListDir { path: String },
    /// Answers a [`WalkResult`](cy_tools::services::WalkResult).
    Walk { path: String, options: WireWalk },
    /// Answers a [`SearchResult`](cy_tools::services::SearchResult).
    Search { path: String, options: WireSearch },
    /// Answers a [`ShellResult`](cy_tools::services::ShellResult).
    Exec { command: String, options: WireExec },
    /// Answers a [`ProcessInfo`](cy_tools::services::ProcessInfo).
    Start { command: String, options: WireExec },
    /// Answers a [`ProcessInfo`](cy_tools::services::ProcessInfo).
    Status { id: String },
    /// Answers a [`ProcessOutput`](cy_tools::services::ProcessOutput).
    Output { id: String },
    /// Answers `null`.
    WriteStdin { id: String, data: String },
    /// Answers a [`ProcessInfo`](cy_tools::services::ProcessInfo).
    Kill { id: String },
    /// Answers a list of [`ProcessInfo`](cy_tools::services::ProcessInfo).
    List {},
    /// Several read-only operations, each with its own scope, done in one exchange (the
    /// request's own `scope` stays absent). Answers a [`BatchReply`].
    Batch { ops: Vec<SandboxRequest> },
}

impl SandboxOp {
    /// The operation's name, for the run log.
    pub fn name(&self) -> &'static str {
        match self {
            SandboxOp::Read { .. } => "read",
            SandboxOp::ReadRange { .. } => "read_range",
            SandboxOp::Write { .. } => "write",
            SandboxOp::Upload { .. } => "upload",
            SandboxOp::Commit { .. } => "commit",
            SandboxOp::Abandon { .. } => "abandon",
            SandboxOp::Remove { .. } => "remove",
            SandboxOp::Stat { .. } => "stat",
            SandboxOp::ListDir { .. } => "list_dir",
            SandboxOp::Walk { .. } => "walk",
            SandboxOp::Search { .. } => "search",
            SandboxOp::Exec { .. } => "exec",
            SandboxOp::Start { .. } => "start",
            SandboxOp::Status { .. } => "status",
            SandboxOp::Output { .. } => "output",
            SandboxOp::WriteStdin { .. } => "write_stdin",
            SandboxOp::Kill { .. } => "kill",
            SandboxOp::List { .. } => "list",
            SandboxOp::Batch { .. } => "batch",
        }
    }

    /// Whether the operation may go in a [`SandboxOp::Batch`]: it only reads, and is done
    /// soon, so answering it together with others neither repeats a change (a client whose
    /// batch's answer is lost sends it again alone) nor holds up the others long.
    pub fn is_batchable(&self) -> bool {
        matches!(
            self,
            SandboxOp::Read { .. }
                | SandboxOp::ReadRange { .. }
                | SandboxOp::Stat { .. }
                | SandboxOp::ListDir { .. }
                | SandboxOp::Walk { .. }
                | SandboxOp::Search { .. }
        )
    }

    /// The most file data the operation's answer can carry, counted against a batch's
    /// [`MAX_BATCH_READ_BYTES`]; a listing or a search counts as [`LISTING_BYTES`].
    pub fn answer_budget(&self) -> usize {
        match self {
            SandboxOp::Read { max_len, .. } | SandboxOp::ReadRange { max_len, .. } => *max_len,
            SandboxOp::ListDir { .. } | SandboxOp::Walk { .. } | SandboxOp::Search { .. } => {
                LISTING_BYTES
            }
            _ => 0,
        }
    }
}

/// Most operations in one [`SandboxOp::Batch`].
pub const MAX_BATCH_OPS: usize = 64;

/// Most file data one [`SandboxOp::Batch`] may ask for in all (the sum of its operations'
/// [`answer_budget`](SandboxOp::answer_budget)s): two of the largest ranged reads, so a
/// batch's answer (base64, a third larger) stays well under the 16 MiB a client takes, and 16
/// whole-file reads of a client's default 512 KiB first chunk fit in one.
pub const MAX_BATCH_READ_BYTES: usize = 2 * MAX_RANGE_BYTES;

/// What a listing, a walk or a search counts for in a batch's [`MAX_BATCH_READ_BYTES`]: its
/// answer's size is not known beforehand.
pub const LISTING_BYTES: usize = 256 * 1024;

/// The answer to a [`SandboxOp::Batch`]: one result per operation, in the batch's order.
///
/// ```
/// use cy_tools_remote::sandbox::wire::{BatchReply, BatchResult, SandboxOp, SandboxRequest};
///
/// let batch = SandboxRequest {
///     scope: None,
///     op: SandboxOp::Batch {
///         ops: vec![
///             SandboxRequest { scope: None, op: SandboxOp::Stat { path: "a.txt".into() } },
///             SandboxRequest { scope: Some("kids/k-1".into()), op: SandboxOp::ListDir { path: ".".into() } },
///         ],
///     },
/// };
/// assert_eq!(
///     serde_json::to_string(&batch).unwrap(),
///     r#"{"op":{"kind":"batch","ops":[{"op":{"kind":"stat","path":"a.txt"}},{"scope":"kids/k-1","op":{"kind":"list_dir","path":"."}}]}}"#
/// );
/// assert!(!SandboxOp::Remove { path: "a.txt".into() }.is_batchable());
///
/// let reply: BatchReply = serde_json::from_str(
///     r#"{"results":[{"ok":[]},{"error":"no file or folder `a.txt`","kind":"not_found"}]}"#,
/// )
/// .unwrap();
/// assert_eq!(reply.results[0], BatchResult::Done { ok: serde_json::json!([]) });
/// assert!(matches!(&reply.results[1], BatchResult::Refused { kind, status: None, .. } if kind == "not_found"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchReply {
    /// Each operation's result.
    pub results: Vec<BatchResult>,
}

/// One operation's result in a [`BatchReply`]: `{"ok": value}`, or the error the operation
/// alone would have been answered with (`{"error", "kind"}`, and its `status` when that is not
/// `422`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BatchResult {
    /// Done: the value the operation alone answers with `200`.
    Done {
        /// The value.
        ok: serde_json::Value,
    },
    /// Refused.
    Refused {
        /// What went wrong and what to do about it.
        error: String,
        /// The [`ServiceErrorKind`] of the failure, in snake case.
        kind: String,
        /// The status the operation alone would have been answered with, when not `422`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
    },
}

/// A chunk of a file, and for a whole read the file's size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The bytes, base64.
    pub data: String,
    /// The file's size, answered to [`SandboxOp::Read`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// [`WalkOptions`] on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct WireWalk {
    pub max_depth: usize,
    pub respect_gitignore: bool,
    pub include_hidden: bool,
    pub max_entries: usize,
}

impl From<&WalkOptions> for WireWalk {
    fn from(o: &WalkOptions) -> Self {
        WireWalk {
            max_depth: o.max_depth,
            respect_gitignore: o.respect_gitignore,
            include_hidden: o.include_hidden,
            max_entries: o.max_entries,
        }
    }
}

impl From<WireWalk> for WalkOptions {
    fn from(o: WireWalk) -> Self {
        WalkOptions {
            max_depth: o.max_depth,
            respect_gitignore: o.respect_gitignore,
            include_hidden: o.include_hidden,
            max_entries: o.max_entries,
        }
    }
}

/// [`SearchOptions`] on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct WireSearch {
    pub pattern: String,
    #[serde(default)]
    pub glob: Option<String>,
    pub case_insensitive: bool,
    pub max_matches: usize,
    pub respect_gitignore: bool,
}

impl From<&SearchOptions> for WireSearch {
    fn from(o: &SearchOptions) -> Self {
        WireSearch {
            pattern: o.pattern.clone(),
            glob: o.glob.clone(),
            case_insensitive: o.case_insensitive,
            max_matches: o.max_matches,
            respect_gitignore: o.respect_gitignore,
        }
    }
}

impl From<WireSearch> for SearchOptions {
    fn from(o: WireSearch) -> Self {
        SearchOptions {
            pattern: o.pattern,
            glob: o.glob,
            case_insensitive: o.case_insensitive,
            max_matches: o.max_matches,
            respect_gitignore: o.respect_gitignore,
            // A counter cannot cross hosts; the execution host's search counts for nobody.
            files_searched: None,
        }
    }
}

/// [`ExecOptions`] on the wire: what can cross to another host. Cancellation is closing the
/// connection; descriptors and host paths to read cannot cross, and are refused by the client.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireExec {
    /// Working directory, relative to the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Variables added to the clean environment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
    /// Standard input, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Wall-clock limit in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Cap on each captured stream, in bytes; the server holds it to its own output cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_limit: Option<usize>,
    /// Resource caps; absent, the server's own. The server holds each to its own: a request
    /// may lower a cap, never raise it or lift it (`None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<WireResources>,
}

/// [`ResourceLimits`] on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct WireResources {
    pub cpu_time_ms: Option<u64>,
    pub memory: Option<u64>,
    pub processes: Option<u32>,
}

impl WireExec {
    /// The wire form of `options`.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) for descriptors to pass or host
    /// paths to read, which mean nothing on another host.
    pub fn from_options(options: &ExecOptions, sandbox: &str) -> Result<Self, ServiceError> {
        #[cfg(unix)]
        let passes_fds = !options.pass_fds.is_empty();
        #[cfg(not(unix))]
        let passes_fds = false;
        if passes_fds || !options.read_only.is_empty() {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "the workspace {sandbox} is on another host, so a command there cannot inherit this host's descriptors or read its files; run it without them (code mode runs through the remote executor)"
                ),
            ));
        }
        Ok(WireExec {
            cwd: options.cwd.clone(),
            env: options.env.clone(),
            stdin: options.stdin.as_deref().map(encode),
            timeout_ms: options.timeout.map(millis),
            output_limit: options.output_limit,
            resources: options.resources.map(|r| WireResources {
                cpu_time_ms: r.cpu_time.map(millis),
                memory: r.memory,
                processes: r.processes,
            }),
        })
    }

    /// The options this stands for (without cancellation, which the server adds).
    ///
    /// # Errors
    /// `stdin` is not base64.
    pub fn into_options(self) -> Result<ExecOptions, ServiceError> {
        Ok(ExecOptions {
            cwd: self.cwd,
            env: self.env,
            stdin: self.stdin.as_deref().map(decode).transpose()?,
            timeout: self.timeout_ms.map(Duration::from_millis),
            output_limit: self.output_limit,
            resources: self.resources.map(|r| ResourceLimits {
                cpu_time: r.cpu_time_ms.map(Duration::from_millis),
                memory: r.memory,
                processes: r.processes,
            }),
            ..ExecOptions::default()
        })
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Bytes as base64.
pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Base64 back to bytes.
///
/// # Errors
/// [`InvalidInput`](ServiceErrorKind::InvalidInput) when `text` is not base64.
pub fn decode(text: &str) -> Result<Vec<u8>, ServiceError> {
    STANDARD.decode(text).map_err(|err| {
        ServiceError::new(
            ServiceErrorKind::InvalidInput,
            format!("file data is not standard base64 ({err}); send the bytes base64-encoded"),
        )
    })
}

/// Checks an upload's name: 8 to 64 lowercase hex digits, so it names a staging file and
/// nothing else.
///
/// # Errors
/// [`InvalidInput`](ServiceErrorKind::InvalidInput) for any other name.
pub fn check_upload(upload: &str) -> Result<(), ServiceError> {
    let ok = (8..=64).contains(&upload.len())
        && upload
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if ok {
        return Ok(());
    }
    Err(ServiceError::new(
        ServiceErrorKind::InvalidInput,
        format!("upload `{upload}` is not a staging file's name: use 8 to 64 lowercase hex digits"),
    ))
}

/// The staging file of upload `upload`, in the view's root.
pub fn staging_name(upload: &str) -> String {
    format!(".cy-upload-{upload}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_refuse_unknown_fields() {
        let request = SandboxRequest {
            scope: Some("subagents/a-1".into()),
            op: SandboxOp::ReadRange {
                path: "a.txt".into(),
                offset: 3,
                max_len: 10,
            },
        };
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(
            json,
            r#"{"scope":"subagents/a-1","op":{"kind":"read_range","path":"a.txt","offset":3,"max_len":10}}"#
        );
        assert_eq!(
            serde_json::from_str::<SandboxRequest>(&json).unwrap(),
            request
        );
        let err =
            serde_json::from_str::<SandboxRequest>(r#"{"op":{"kind":"list","x":1}}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `x`"), "{err}");
    }

    #[test]
    fn upload_names_are_hex_only() {
        check_upload("0123abcd").unwrap();
        for bad in ["", "0123abc", "../x/0123abcd", "0123ABCD", &"a".repeat(65)] {
            assert!(check_upload(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn options_that_cannot_cross_hosts_are_refused() {
        let mut options = ExecOptions::default().timeout(Duration::from_millis(1500));
        options.stdin = Some(b"hi".to_vec());
        let wire = WireExec::from_options(&options, "`w`").unwrap();
        assert_eq!(wire.timeout_ms, Some(1500));
        let back = wire.into_options().unwrap();
        assert_eq!(back.stdin.as_deref(), Some(&b"hi"[..]));
        options.read_only.push("/usr/lib/x".into());
        let err = WireExec::from_options(&options, "`w`").unwrap_err();
        assert_eq!(err.kind(), ServiceErrorKind::InvalidInput);
    }
}
