//! Replays each fuzz target's committed corpus (`fuzz/corpus/<target>/`) through the target's
//! own body, on stable Rust: every seed must pass the target's oracle here, as under the
//! fuzzer, so a change that breaks one fails CI instead of waiting for the next fuzzing run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use cy_tools_fuzz_harness::targets;

/// The inputs of `target`'s corpus, sorted by name.
fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("cannot read the corpus folder {}: {err}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs every input of `target`'s corpus through it and fails naming each input that fails.
fn replay(target: &str) {
    let run = targets::ALL
        .iter()
        .find(|(name, _)| *name == target)
        .unwrap_or_else(|| panic!("no fuzz target `{target}` in `targets::ALL`"))
        .1;
    let files = corpus(target);
    let seeds = files
        .iter()
        .filter(|f| {
            f.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
        })
        .count();
    assert!(
        seeds > 0,
        "fuzz/corpus/{target}/ has no committed `seed-*` inputs: the replay would prove nothing"
    );
    let mut failed = Vec::new();
    for file in &files {
        let data = std::fs::read(file).expect("a corpus input");
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            failed.push(file.display().to_string());
        }
    }
    eprintln!(
        "replayed {} inputs of fuzz/corpus/{target} ({seeds} committed seeds)",
        files.len()
    );
    assert!(
        failed.is_empty(),
        "{} of {} `{target}` corpus inputs failed the target's checks (the panic messages are above); reproduce one with `cargo +nightly fuzz run {target} <file>` in fuzz/:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

#[test]
fn tool_args_corpus_passes() {
    replay("tool_args");
}

#[test]
fn path_resolution_corpus_passes() {
    replay("path_resolution");
}

/// The stack rustc gives the thread that runs a proc macro (its `DEFAULT_STACK_SIZE`, 8 MiB),
/// where `#[tool]` parses: an input the fuzzer grew to nest deeper than a test thread's 2 MiB
/// debug stack holds is replayed where the macro really runs.
const RUSTC_STACK: usize = 8 * 1024 * 1024;

#[test]
fn macro_parse_corpus_passes() {
    std::thread::Builder::new()
        .stack_size(RUSTC_STACK)
        .spawn(|| replay("macro_parse"))
        .expect("a thread for the replay")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

#[test]
fn every_target_has_a_replay() {
    let names: Vec<&str> = targets::ALL.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["macro_parse", "path_resolution", "tool_args"]);
    let fuzz_toml =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/Cargo.toml"))
            .unwrap();
    let bins = fuzz_toml.matches("[[bin]]").count();
    assert_eq!(
        bins,
        names.len(),
        "fuzz/Cargo.toml has {bins} targets and `targets::ALL` {}: add the new target's body to fuzz-harness and a replay test here",
        names.len()
    );
}
