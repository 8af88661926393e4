//! The tools only this application's own binary, `cy-tools-app`, adds to the built-ins: two with
//! structured results (an object and a list), one whose parameter type no Gemini schema can
//! express, one answering audio and resources while it logs, and two that get stuck the ways a
//! badly written tool can. Behind the `app` feature, so an application that
//! links this crate for its other tools does not get them.

use std::collections::BTreeMap;
use std::time::Duration;

use cy_tools::call::{Content, LogLevel};
use cy_tools::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How often each word occurs in a text (its schema is the tool's MCP `outputSchema`).
#[derive(Serialize, JsonSchema)]
pub struct WordStats {
    /// How many words.
    pub words: usize,
    /// How many distinct words.
    pub distinct: usize,
    /// The most common word, the first in alphabetical order on a tie.
    pub most_common: Option<String>,
}

/// Count the words of a text: how many, how many distinct, and the most common one (the first
/// in alphabetical order on a tie), as structured JSON.
#[tool(title = "Word statistics", read_only, idempotent, open_world = false)]
pub async fn word_stats(
    /// The text, words separated by whitespace.
    text: String,
) -> Json<WordStats> {
    let mut counts = BTreeMap::<&str, usize>::new();
    for word in text.split_whitespace() {
        *counts.entry(word).or_default() += 1;
    }
    let most_common = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(word, _)| (*word).to_string());
    Json(WordStats {
        words: counts.values().sum(),
        distinct: counts.len(),
        most_common,
    })
}

// A structured result that is a list, so MCP clients get it as `{"result": [...]}`; a plain
// `fn`, so it runs on the blocking pool.
/// The length of each word of a text, in order.
#[tool(read_only, idempotent, open_world = false)]
pub fn word_lengths(
    /// The text, words separated by whitespace.
    text: String,
) -> Json<Vec<usize>> {
    Json(text.split_whitespace().map(|w| w.chars().count()).collect())
}

/// A section of an outline, with sections of its own.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// The section's title.
    pub title: String,
    /// Its subsections.
    #[serde(default)]
    pub children: Vec<Section>,
}

/// Count the sections of an outline. Its parameter type is recursive, which Gemini's schema
/// subset cannot express.
#[tool(read_only, idempotent, open_world = false)]
pub async fn outline(
    /// The outline's root section.
    // Sent nested, under `root`: the tool's only argument is a struct.
    #[arg(nested)]
    root: Section,
) -> String {
    fn count(section: &Section) -> usize {
        1 + section.children.iter().map(count).sum::<usize>()
    }
    format!("{} sections under `{}`", count(&root), root.title)
}

/// A silent WAV clip: the header and one 16-bit sample at 8 kHz.
pub const SILENT_WAV: &[u8] = &[
    b'R', b'I', b'F', b'F', 38, 0, 0, 0, b'W', b'A', b'V', b'E', b'f', b'm', b't', b' ', 16, 0, 0,
    0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0, b'd', b'a', b't', b'a', 2, 0,
    0, 0, 0, 0,
];

/// Record a short clip: answers with the clip (audio), its transcript and a link to where it is
/// kept, and logs what it does.
#[tool(read_only, idempotent, open_world = false)]
pub async fn record_clip(
    call: CallInfo<'_>,
    /// The clip's name, one word.
    name: String,
) -> ToolResult {
    call.log(LogLevel::Info, format!("recording `{name}`"));
    call.log(
        LogLevel::Debug,
        serde_json::json!({"clip": name, "samples": 1}),
    );
    ToolResult::text(format!("recorded `{name}`"))
        .with_content(Content::audio(SILENT_WAV, "audio/wav"))
        .with_content(Content::embedded_text(
            format!("clip://{name}/transcript"),
            "text/plain",
            "(silence)",
        ))
        .with_content(Content::link(format!("clip://{name}"), name))
}

/// Block the thread running this call for a minute, as a tool body calling a blocking
/// function does. Creates the file `marker` (a host path) first.
#[tool(read_only, open_world = false)]
pub async fn block_thread(
    /// A host path to create once the call runs.
    marker: String,
) -> String {
    std::fs::write(&marker, "").unwrap();
    std::thread::sleep(Duration::from_secs(60));
    "woke up".to_string()
}

/// Block a blocking-pool thread for a minute, which no cancellation can stop. Creates the file
/// `marker` (a host path) first.
#[tool(read_only, open_world = false)]
pub async fn block_pool(
    /// A host path to create once the call runs.
    marker: String,
) -> String {
    let _ = tokio::task::spawn_blocking(move || {
        std::fs::write(&marker, "").unwrap();
        std::thread::sleep(Duration::from_secs(60));
    })
    .await;
    "woke up".to_string()
}

/// Answer `bytes` bytes of numbered lines: a result too large for a model, which the session's
/// result limit cuts and keeps whole in the workspace.
#[tool(read_only, idempotent, open_world = false)]
pub async fn big_text(
    /// How many bytes to answer.
    bytes: usize,
) -> String {
    let mut out = String::with_capacity(bytes + 16);
    let mut line = 0;
    while out.len() < bytes {
        out.push_str(&format!("line {line}\n"));
        line += 1;
    }
    out.truncate(bytes);
    out
}
