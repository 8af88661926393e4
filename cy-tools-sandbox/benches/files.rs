//! File tools against the plain ways of doing the same, in one run:
//!
//! * `read_file` of the first 100 lines of 1 MB, 10 MB and 100 MB files, against a
//!   `BufReader` reading the same 100 lines (the ratio should stay flat as the file grows);
//! * `search_text` over a tree of 2,000 files (about 40 MB) against other searches of that
//!   tree with the same number of threads: in `search_2000_files_1_thread` the bench pins
//!   itself (and so the searches it starts) to one core, where `search_text` searches on one
//!   thread (it takes `available_parallelism`, which follows the affinity), against `rg -j1`
//!   and `grep -rn` (single-threaded); in `search_2000_files_all_cores`, unpinned, against `rg`
//!   (one thread per core, as `search_text` up to its cap of four). `grep -rn` stays there too,
//!   as the figure earlier runs compared with. Without `rg` (ripgrep, `apt-get install
//!   ripgrep`) its rows are left out and said so.
//!
//! `scripts/bench-files` runs it and prints the ratios.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::{CancellationToken, SessionIdentity, ToolCall, ToolContext, binding::bind_tool};
use cy_tools_sandbox::LocalSandbox;
use cy_tools_sandbox::tools::{read_file::READ_FILE, search_text::SEARCH_TEXT};
use serde_json::json;

fn write_lines(path: &Path, bytes: u64) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0u64;
    let mut i = 0u64;
    while written < bytes {
        let line =
            format!("{i:08} the quick brown fox jumps over the lazy dog, line of a large log\n");
        out.write_all(line.as_bytes()).unwrap();
        written += line.len() as u64;
        i += 1;
    }
}

fn read_first_lines(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let env = LocalSandbox::new(dir.path()).unwrap().env();
    let ctx = ToolContext::new(SessionIdentity::root("bench", "bench")).with_env(Arc::new(env));
    let tool = bind_tool(&READ_FILE, ctx).unwrap();
    let cancel = CancellationToken::new();
    let mut group = c.benchmark_group("read_100_lines");
    for (label, size) in [
        ("1MB", 1u64 << 20),
        ("10MB", 10 << 20),
        ("100MB", 100 << 20),
    ] {
        let name = format!("{label}.log");
        let path = dir.path().join(&name);
        write_lines(&path, size);
        let args = json!({"path": name, "limit": 100});
        let check = runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel));
        assert!(!check.is_error && check.text_content().lines().count() == 101);
        group.bench_function(format!("bufreader_{label}"), |b| {
            b.iter(|| {
                let reader = BufReader::new(std::fs::File::open(&path).unwrap());
                let lines: Vec<String> = reader.lines().take(100).map(Result::unwrap).collect();
                black_box(lines)
            })
        });
        group.bench_function(format!("read_file_{label}"), |b| {
            b.iter(|| {
                black_box(runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel)))
            })
        });
    }
    group.finish();
}

fn search_tree(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    for d in 0..40 {
        let sub = root.join(format!("pkg{d:02}/src"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..50 {
            let mut text = String::with_capacity(20_000);
            for l in 0..300 {
                if (d * 50 + f) % 97 == 0 && l == 150 {
                    text.push_str("    let needle_value = compute(); // NEEDLE_MARK\n");
                } else {
                    text.push_str("    let value = some_function(argument, other_argument);\n");
                }
            }
            std::fs::write(sub.join(format!("file{f:02}.rs")), text).unwrap();
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let env = LocalSandbox::new(&root).unwrap().env();
    let ctx = ToolContext::new(SessionIdentity::root("bench", "bench")).with_env(Arc::new(env));
    let tool = bind_tool(&SEARCH_TEXT, ctx).unwrap();
    let cancel = CancellationToken::new();
    let args = json!({"pattern": "NEEDLE_MARK", "max_results": 1000});
    let ours = runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel));
    let grep = Command::new("grep")
        .args(["-rn", "NEEDLE_MARK"])
        .arg(&root)
        .output()
        .unwrap();
    let grep_count = String::from_utf8_lossy(&grep.stdout).lines().count();
    assert_eq!(
        ours.text_content().lines().count(),
        grep_count,
        "both must find the same lines"
    );
    assert!(grep_count > 10);
    let has_rg = Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if has_rg {
        let rg = Command::new("rg")
            .args(["-n", "NEEDLE_MARK"])
            .arg(&root)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&rg.stdout).lines().count(),
            grep_count,
            "rg must find the same lines"
        );
    } else {
        eprintln!("rg (ripgrep) is not installed: its rows are left out");
    }
    let search =
        || black_box(runtime.block_on(tool.execute(ToolCall::new("c", args.clone()), &cancel)));
    let spawn = |program: &str, flags: &[&str]| {
        let status = Command::new(program)
            .args(flags)
            .arg("NEEDLE_MARK")
            .arg(&root)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        black_box(status)
    };

    // One thread on each side: this thread (whose searches and children inherit its
    // affinity) pinned to the first core it may use, then unpinned again.
    let all_cores = rustix::thread::sched_getaffinity(None).expect("the bench's CPU affinity");
    let mut one_core = rustix::thread::CpuSet::new();
    let first = (0..rustix::thread::CpuSet::MAX_CPU)
        .find(|&cpu| all_cores.is_set(cpu))
        .expect("a core to run on");
    one_core.set(first);
    rustix::thread::sched_setaffinity(None, &one_core).expect("pinned to one core");
    assert_eq!(
        std::thread::available_parallelism().map_or(1, usize::from),
        1,
        "pinned: search_text must see one core"
    );
    let mut group = c.benchmark_group("search_2000_files_1_thread");
    group.sample_size(20);
    group.bench_function("grep_rn", |b| b.iter(|| spawn("grep", &["-rn"])));
    if has_rg {
        group.bench_function("rg_j1", |b| b.iter(|| spawn("rg", &["-n", "-j1"])));
    }
    group.bench_function("search_text", |b| b.iter(search));
    group.finish();
    rustix::thread::sched_setaffinity(None, &all_cores).expect("unpinned");

    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "search_2000_files_all_cores: {cores} cores; search_text uses up to 4 threads, rg one per core"
    );
    let mut group = c.benchmark_group("search_2000_files_all_cores");
    group.sample_size(20);
    group.bench_function("grep_rn", |b| b.iter(|| spawn("grep", &["-rn"])));
    if has_rg {
        group.bench_function("rg", |b| b.iter(|| spawn("rg", &["-n"])));
    }
    group.bench_function("search_text", |b| b.iter(search));
    group.finish();
}

criterion_group!(benches, read_first_lines, search_tree);
criterion_main!(benches);
