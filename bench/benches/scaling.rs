//! How binding scales: with the size of the toolset and with the number of sessions.
//!
//! * `scaling_tools_small/N`, `scaling_tools_large/N`: `ToolRegistry::build` of N generated tools
//!   (N = 1, 10, 100, 1000) for one session's context, with two-property schemas and with
//!   forty-property ones (about 15 KB each). Binding attaches the definition's cached schema by
//!   reference, so the two series should match.
//! * `scaling_sessions/S`: S sessions (S = 1 to 10,000) of 16 tools each, each bound for its
//!   own context and all kept alive until the iteration ends (their drop is not measured): the
//!   time per session is the median divided by S.
//!
//! The tools are generated at run time (see `cy_tools_bench::generated`). Heap bytes per session
//! come from the `session_memory` binary, which counts allocations; this benchmark only times.
//! `scripts/bench-scaling` runs both and draws the plot.

#![forbid(unsafe_code)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use cy_tools::{ToolContext, Toolset};
use cy_tools_bench::generated::{self, SchemaSize};

const TOOL_COUNTS: [usize; 4] = [1, 10, 100, 1000];
const SESSION_COUNTS: [usize; 5] = [1, 10, 100, 1000, 10_000];
const TOOLS_PER_SESSION: usize = 16;

fn tools(c: &mut Criterion) {
    for size in [SchemaSize::Small, SchemaSize::Large] {
        let mut group = c.benchmark_group(format!("scaling_tools_{}", size.name()));
        for count in TOOL_COUNTS {
            let definitions = generated::definitions(count, size);
            let (registry, names) = generated::registry(&definitions);
            let context = (*generated::session_context(0)).clone();
            // The first bind generates and compiles the schemas: a per-process cost.
            assert_eq!(registry.build(&names, &context).len(), count);
            group.bench_function(BenchmarkId::from_parameter(count), |b| {
                b.iter(|| black_box(registry.build(black_box(&names), black_box(&context))))
            });
        }
        group.finish();
    }
}

fn sessions(c: &mut Criterion) {
    let definitions = generated::definitions(TOOLS_PER_SESSION, SchemaSize::Small);
    let (registry, names) = generated::registry(&definitions);
    let mut group = c.benchmark_group("scaling_sessions");
    for count in SESSION_COUNTS {
        let contexts: Vec<ToolContext> = (0..count)
            .map(|i| (*generated::session_context(i)).clone())
            .collect();
        assert_eq!(
            registry.build(&names, &contexts[0]).len(),
            TOOLS_PER_SESSION
        );
        // An iteration of 10,000 sessions takes milliseconds: fewer samples keep the run short.
        group.sample_size(if count >= 1000 { 10 } else { 50 });
        group.bench_function(BenchmarkId::from_parameter(count), |b| {
            b.iter_with_large_drop(|| {
                contexts
                    .iter()
                    .map(|context| registry.build(black_box(&names), context))
                    .collect::<Vec<Toolset>>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, tools, sessions);
criterion_main!(benches);
