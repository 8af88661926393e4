//! What confining a command costs: `sh -c true` and `python3 -c pass` started through the
//! sandbox with [`Isolation::Strict`] against the same sandbox with [`Isolation::None`], in one
//! run.
//!
//! First the paired ratio: the two sides timed in alternating rounds (the median of the
//! per-round ratios, so a burst of load on the shared machine lands on both sides and a spoiled
//! round is outvoted), then criterion's own measurements of each side. Goal: at most 1.15x.
//!
//! Reproduce: `cargo bench -p cy-tools-builtin --bench isolation`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::services::{ExecOptions, Sandbox};
use cy_tools_sandbox::Isolation;
use cy_tools_sandbox::{ExecLimits, LocalSandbox, SandboxView};

/// Rounds of the paired measurement: odd, so the median is one round's ratio.
const ROUNDS: usize = 31;

fn sandbox(dir: &std::path::Path, isolation: Isolation) -> SandboxView {
    LocalSandbox::new(dir)
        .unwrap()
        .with_limits(ExecLimits {
            isolation,
            ..ExecLimits::default()
        })
        .env()
}

/// The median over [`ROUNDS`] of (time of `iterations` runs of `a`) / (the same of `b`),
/// alternating which goes first.
fn paired(iterations: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> f64 {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..iterations {
            f();
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .map(|round| {
            if round % 2 == 0 {
                let ta = time(&mut a);
                ta / time(&mut b)
            } else {
                let tb = time(&mut b);
                time(&mut a) / tb
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ROUNDS / 2]
}

fn isolation(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let confined = sandbox(dir.path(), Isolation::Strict);
    let open = sandbox(dir.path(), Isolation::None);
    let run = |env: &SandboxView, command: &str| {
        let result = runtime
            .block_on(env.exec(command, ExecOptions::default()))
            .unwrap();
        assert!(result.success(), "{command}: {result:?}");
        black_box(result);
    };
    // Confinement really is on: the confined side cannot read this file.
    let probe = runtime
        .block_on(confined.exec("cat /proc/1/environ", ExecOptions::default()))
        .unwrap();
    assert!(!probe.success(), "the strict side is not confined");

    for (name, command, iterations) in [
        ("sh_c_true", "true", 20),
        ("python3_c_pass", "python3 -c pass", 5),
    ] {
        let ratio = paired(
            iterations,
            || run(&confined, command),
            || run(&open, command),
        );
        println!("isolation/{name}: strict / none, paired median of {ROUNDS} rounds: {ratio:.3}x");
        let mut group = c.benchmark_group(format!("isolation/{name}"));
        group.measurement_time(Duration::from_secs(8));
        group.bench_function("strict", |b| b.iter(|| run(&confined, command)));
        group.bench_function("none", |b| b.iter(|| run(&open, command)));
        group.finish();
    }
}

criterion_group!(benches, isolation);
criterion_main!(benches);
