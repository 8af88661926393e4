//! Heap bytes per session, counted by a global allocator wrapper (`stats_alloc`), as the toolset
//! grows from 1 to 1,000 tools and the sessions from 1 to 10,000, with small and large schemas.
//!
//! A session's bytes are what building its toolset leaves allocated: its context in an `Arc`
//! (cloned from the one the host made) and the bound tools. Schemas, validators and the
//! registry are process-wide: they are counted apart, once, when the definitions are first
//! bound. Bytes are the sizes requested from the allocator, without its own overhead.
//!
//! Run with `cargo bench --bench session_memory`: prints tables and writes the figures as JSON
//! for the plot, to `$SESSION_MEMORY_OUT` or else `target/scaling/memory.json` in the bench
//! crate.

#![forbid(unsafe_code)]

use std::alloc::System;
use std::fmt::Write as _;
use std::path::PathBuf;

use cy_tools::definition::Definition;
use cy_tools::{ToolContext, ToolRegistry, Toolset, definition::Schema};
use cy_tools_bench::generated::{self, SchemaSize};
use cy_tools_bench::{ours, peer_rmcp::RmcpTools};
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const TOOL_COUNTS: [usize; 4] = [1, 10, 100, 1000];
const SESSION_COUNTS: [usize; 5] = [1, 10, 100, 1000, 10_000];
/// Sessions built per point of the tool sweep: enough to average out one-off growth.
const SESSIONS_PER_TOOL_POINT: usize = 100;
/// Tools per session in the session sweep: the size of the peer comparison's toolset.
const TOOLS_PER_SESSION: usize = 16;

/// What `f` left allocated: bytes still held and allocation calls made.
#[derive(Clone, Copy)]
struct Retained {
    bytes: i64,
    allocations: usize,
}

/// Runs `f` and counts what it left allocated; its result is kept alive until then.
fn retained<T>(f: impl FnOnce() -> T) -> (T, Retained) {
    let region = Region::new(GLOBAL);
    let value = f();
    let change = region.change();
    // `stats_alloc` books a reallocation's growth or shrinkage in these two totals already.
    let bytes = change.bytes_allocated as i64 - change.bytes_deallocated as i64;
    (
        value,
        Retained {
            bytes,
            allocations: change.allocations,
        },
    )
}

/// Per-session figures: bytes kept and allocation calls.
#[derive(Clone, Copy)]
struct PerSession {
    bytes: f64,
    allocations: f64,
}

/// Builds `sessions` toolsets of `names`, each for its own context, and returns the bytes each
/// session keeps. The contexts are made before counting: a host makes a session's context
/// whatever its tool framework, and binding clones it into the session's `Arc`.
fn per_session(registry: &ToolRegistry, names: &[&str], sessions: usize) -> PerSession {
    let contexts: Vec<ToolContext> = (0..sessions)
        .map(|i| (*generated::session_context(i)).clone())
        .collect();
    let mut kept: Vec<Toolset> = Vec::with_capacity(sessions);
    let ((), counted) = retained(|| {
        for context in &contexts {
            kept.push(registry.build(names, context));
        }
    });
    assert!(kept.iter().all(|t| t.len() == names.len()));
    assert_schemas_shared(&kept);
    PerSession {
        bytes: counted.bytes as f64 / sessions as f64,
        allocations: counted.allocations as f64 / sessions as f64,
    }
}

/// Every session's tool points at the one schema its definition holds: not a copy.
fn assert_schemas_shared(sessions: &[Toolset]) {
    let Some(first) = sessions.first() else {
        return;
    };
    for other in sessions {
        for (a, b) in first.iter().zip(other.iter()) {
            assert!(
                std::ptr::eq(a.parameters(), b.parameters()),
                "`{}`: two sessions hold different schema values",
                a.name()
            );
        }
    }
}

/// Registers and binds `count` generated tools once: what the process pays for them, schemas
/// included, whatever the number of sessions.
fn generated_registry(
    count: usize,
    size: SchemaSize,
) -> (ToolRegistry, Vec<&'static str>, i64, usize) {
    let ((registry, names, schema_bytes), process_bytes) = retained(|| {
        let definitions: Vec<&'static dyn Definition> = generated::definitions(count, size);
        let (registry, names) = generated::registry(&definitions);
        // The first bind generates, canonicalizes and compiles each schema.
        let warm = registry.build(&names, generated::session_context(0));
        assert_eq!(warm.len(), count);
        let schema_bytes: usize = warm
            .iter()
            .map(|t| serde_json::to_vec(t.parameters()).map_or(0, |v| v.len()))
            .sum();
        (registry, names, schema_bytes)
    });
    (registry, names, process_bytes.bytes, schema_bytes)
}

fn main() {
    let out = std::env::var_os("SESSION_MEMORY_OUT").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/scaling/memory.json"),
        PathBuf::from,
    );
    let mut report = String::new();

    // The first registry also pays the process's one-off lazy initialization (lazily built
    // statics in the libraries below): leave that out of the first point.
    drop(generated_registry(1, SchemaSize::Small));

    let mut tool_points = Vec::new();
    writeln!(
        report,
        "| schema | tools | schema JSON, all tools | process-wide (definitions, registry, schemas) | bytes per session | allocations per session |"
    )
    .unwrap();
    writeln!(report, "|---|---|---|---|---|---|").unwrap();
    for size in [SchemaSize::Small, SchemaSize::Large] {
        for count in TOOL_COUNTS {
            let (registry, names, process_bytes, schema_bytes) = generated_registry(count, size);
            let session = per_session(&registry, &names, SESSIONS_PER_TOOL_POINT);
            writeln!(
                report,
                "| {} | {count} | {schema_bytes} B | {process_bytes} B | {:.0} B | {:.0} |",
                size.name(),
                session.bytes,
                session.allocations
            )
            .unwrap();
            tool_points.push(json!({
                "schema": size.name(),
                "tools": count,
                "schema_json_bytes": schema_bytes,
                "process_bytes": process_bytes,
                "bytes_per_session": session.bytes,
                "allocations_per_session": session.allocations,
                "sessions": SESSIONS_PER_TOOL_POINT,
            }));
        }
    }

    // What one definition's share of the process-wide bytes is made of: the canonical schema
    // value, and (the rest) the validator compiled from it and the registry entry.
    let per_tool = |size: SchemaSize| {
        tool_points
            .iter()
            .find(|p| p["schema"] == size.name() && p["tools"] == 1000)
            .and_then(|p| p["process_bytes"].as_i64())
            .map_or(0.0, |b| b as f64 / 1000.0)
    };
    writeln!(
        report,
        "\n| schema | JSON text | canonical `Schema` on the heap | whole definition, process-wide |\n|---|---|---|---|"
    )
    .unwrap();
    let mut schema_points = Vec::new();
    for size in [SchemaSize::Small, SchemaSize::Large] {
        let json_bytes = serde_json::to_vec(&size.schema()).map_or(0, |v| v.len());
        let (schema, value) = retained(|| Schema::canonical(size.schema()).expect("valid"));
        drop(schema);
        writeln!(
            report,
            "| {} | {json_bytes} B | {} B | {:.0} B |",
            size.name(),
            value.bytes,
            per_tool(size)
        )
        .unwrap();
        schema_points.push(json!({
            "schema": size.name(),
            "json_bytes": json_bytes,
            "canonical_value_bytes": value.bytes,
            "definition_bytes": per_tool(size),
        }));
    }

    let mut session_points = Vec::new();
    writeln!(
        report,
        "\n| sessions | tools each | bytes per session | allocations per session |"
    )
    .unwrap();
    writeln!(report, "|---|---|---|---|").unwrap();
    let (registry, names, _, _) = generated_registry(TOOLS_PER_SESSION, SchemaSize::Small);
    for sessions in SESSION_COUNTS {
        let session = per_session(&registry, &names, sessions);
        writeln!(
            report,
            "| {sessions} | {TOOLS_PER_SESSION} | {:.0} B | {:.0} |",
            session.bytes, session.allocations
        )
        .unwrap();
        session_points.push(json!({
            "sessions": sessions,
            "tools": TOOLS_PER_SESSION,
            "bytes_per_session": session.bytes,
            "allocations_per_session": session.allocations,
        }));
    }

    // The peer comparison's 16 tools, per session, in both frameworks.
    let peer_registry = ours::registry();
    let peer_names = peer_registry.names();
    // The first bind generates the 16 schemas, once per process: not a session's cost.
    drop(peer_registry.build(&peer_names, generated::session_context(0)));
    let ours_16 = per_session(&peer_registry, &peer_names, 1000);
    drop(RmcpTools::new()); // fills rmcp's per-thread schema caches
    let mut servers: Vec<RmcpTools> = Vec::with_capacity(1000);
    let ((), rmcp) = retained(|| {
        for _ in 0..1000 {
            servers.push(RmcpTools::new());
        }
    });
    let rmcp_16 = PerSession {
        bytes: rmcp.bytes as f64 / 1000.0,
        allocations: rmcp.allocations as f64 / 1000.0,
    };
    drop(servers);
    // What an rmcp server that builds its router once does per session: clone it.
    let prototype = RmcpTools::new();
    let mut clones: Vec<RmcpTools> = Vec::with_capacity(1000);
    let ((), cloned) = retained(|| {
        for _ in 0..1000 {
            clones.push(prototype.clone());
        }
    });
    let rmcp_clone_16 = PerSession {
        bytes: cloned.bytes as f64 / 1000.0,
        allocations: cloned.allocations as f64 / 1000.0,
    };
    drop(clones);
    writeln!(
        report,
        "\n| the 16 peer tools | bytes per session | allocations per session |\n|---|---|---|\n\
         | cy-tools `registry.build` | {:.0} B | {:.0} |\n\
         | rmcp, a router built once and cloned (the baseline) | {:.0} B | {:.0} |\n\
         | rmcp `Self::tool_router()` per session | {:.0} B | {:.0} |\n\
         | cy-tools / cloned router | {:.2}x | {:.2}x |",
        ours_16.bytes,
        ours_16.allocations,
        rmcp_clone_16.bytes,
        rmcp_clone_16.allocations,
        rmcp_16.bytes,
        rmcp_16.allocations,
        ours_16.bytes / rmcp_clone_16.bytes,
        ours_16.allocations / rmcp_clone_16.allocations,
    )
    .unwrap();

    print!("{report}");
    let document: Value = json!({
        "tools": tool_points,
        "schemas": schema_points,
        "sessions": session_points,
        "peers": {
            "cy_tools_16": {"bytes_per_session": ours_16.bytes, "allocations_per_session": ours_16.allocations},
            "rmcp_16": {"bytes_per_session": rmcp_16.bytes, "allocations_per_session": rmcp_16.allocations},
            "rmcp_clone_16": {"bytes_per_session": rmcp_clone_16.bytes, "allocations_per_session": rmcp_clone_16.allocations},
        },
    });
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).expect("create the output folder");
    }
    std::fs::write(
        &out,
        serde_json::to_vec_pretty(&document).expect("serializable"),
    )
    .expect("write the memory report");
    eprintln!("wrote {}", out.display());
}
