//! The same load on two worker processes sharing one PostgreSQL database, the sessions spread
//! over several tenants: each worker runs every other session and checks its own; the parent
//! merges their figures and counts the store's records over every tenant (lost or misplaced:
//! goal 0; cross-tenant reads: goal 0).
//!
//! Scale as for the SQLite run (`CY_LOAD_SESSIONS`, `CY_LOAD_CALLS`, ...; `CY_LOAD_PROCS` is
//! shared out between the workers), plus
//! `CY_LOAD_TENANTS` (default 4). Needs `CY_TEST_POSTGRES_URL` (see `support::postgres`); the
//! full run, beside the SQLite one, is `scripts/load-test-postgres`.

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::backend::Backend;
use super::config::Config;
use super::figures::{self, Samples};
use super::run;
use super::workload::Kind;
use crate::support::alone::alone;
use crate::support::postgres::{URL_VAR, tenant, url};

const WORKERS: usize = 2;
const WORKER: &str = "CY_LOAD_WORKER";
const PREFIX: &str = "CY_LOAD_TENANT_PREFIX";
const OUT: &str = "CY_LOAD_OUT";

/// What a worker hands the parent.
#[derive(Serialize, Deserialize)]
struct WorkerOut {
    report: String,
    failures: Vec<String>,
    /// (kind, latency in µs) of every top-level call.
    samples: Vec<(String, u64)>,
    started_us: u128,
    took_us: u128,
    answered: usize,
    nested: usize,
    least: usize,
    most: usize,
}

fn tenants() -> usize {
    std::env::var("CY_LOAD_TENANTS")
        .ok()
        .map(|t| {
            t.trim()
                .parse()
                .expect("`CY_LOAD_TENANTS` is not a whole number")
        })
        .unwrap_or(4)
}

#[test]
#[ignore = "run by `two_workers_share_one_postgres_under_load`, once per worker, in processes of their own"]
fn postgres_load_worker() {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!("`{name}` is not set: run `two_workers_share_one_postgres_under_load` instead")
        })
    };
    let (worker, prefix, out, url) = (
        var(WORKER),
        var(PREFIX),
        PathBuf::from(var(OUT)),
        var(URL_VAR),
    );
    let worker: usize = worker.parse().unwrap();
    let mut config = Config::from_env();
    // `CY_LOAD_PROCS` is the host's Python runs in flight, as in the one-process SQLite run:
    // shared out between the workers, so both runs ask the same of the host.
    config.procs = config.procs.map(|n| n.div_ceil(WORKERS));
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let backend = Backend::postgres(&url, &prefix, tenants(), worker, WORKERS).await;
        run(&config, dir.path(), &backend).await
    });
    runtime.shutdown_timeout(Duration::from_secs(10));
    println!("{}", outcome.report);
    let samples = outcome
        .samples
        .by_kind
        .iter()
        .flat_map(|(kind, all)| {
            all.iter()
                .map(|d| (kind.label().to_string(), d.as_micros() as u64))
        })
        .collect();
    let handed = WorkerOut {
        report: outcome.report,
        failures: outcome.failures.clone(),
        samples,
        started_us: outcome
            .calls_started
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_micros(),
        took_us: outcome.calls_took.as_micros(),
        answered: outcome.answered,
        nested: outcome.nested,
        least: outcome.bounds.0,
        most: outcome.bounds.1,
    };
    std::fs::write(&out, serde_json::to_vec(&handed).unwrap()).unwrap();
    assert!(
        outcome.failures.is_empty(),
        "{}",
        super::checks::summary(&outcome.failures)
    );
}

#[test]
fn two_workers_share_one_postgres_under_load() {
    let Some(url) = url() else { return };
    let prefix = tenant("load");
    let dir = tempfile::tempdir().unwrap();
    let out = |w: usize| dir.path().join(format!("worker-{w}.json"));
    let mut children: Vec<_> = (0..WORKERS)
        .map(|w| {
            alone!(postgres_load_worker)
                .env(WORKER, w.to_string())
                .env(PREFIX, &prefix)
                .env(OUT, out(w))
                .command()
                .spawn()
                .unwrap()
        })
        .collect();
    let statuses: Vec<_> = children.iter_mut().map(|c| c.wait().unwrap()).collect();
    let outs: Vec<WorkerOut> = (0..WORKERS)
        .map(|w| {
            serde_json::from_slice(&std::fs::read(out(w)).unwrap_or_default())
                .unwrap_or_else(|_| panic!("worker {w} handed nothing back ({})", statuses[w]))
        })
        .collect();
    let report = merge(&outs);
    let counted = count(&url, &prefix);
    let (least, most) = (
        outs.iter().map(|o| o.least).sum::<usize>(),
        outs.iter().map(|o| o.most).sum::<usize>(),
    );
    let lost = outs
        .iter()
        .flat_map(|o| &o.failures)
        .filter(|f| f.contains("LOST") || f.contains("WRONG RECORD") || f.contains("LEAK"))
        .count()
        + usize::from(!(least as u64..=most as u64).contains(&counted));
    let across = outs
        .iter()
        .flat_map(|o| &o.failures)
        .filter(|f| f.contains("CROSS-TENANT"))
        .count();
    println!("{report}");
    println!(
        "load-postgres: records in the store over all tenants: {counted} (expected {least} to {most}); lost or misplaced: {lost}; cross-tenant reads: {across}"
    );
    for (w, status) in statuses.iter().enumerate() {
        assert!(
            status.success(),
            "worker {w} failed ({status}):\n{}",
            super::checks::summary(&outs[w].failures)
        );
    }
    assert_eq!((lost, across), (0, 0));
}

/// The store's records over every tenant of the run.
fn count(url: &str, prefix: &str) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = cy_tools_session::store::PostgresStore::connect(url)
            .await
            .unwrap();
        let mut total = 0;
        for t in 0..tenants() {
            total += store
                .tenant(format!("{prefix}-{t}"))
                .call_count()
                .await
                .unwrap();
        }
        total
    })
}

/// Both workers' figures as one run: calls per second over the span from the first worker's
/// start to the last one's end, latency percentiles over every call.
fn merge(outs: &[WorkerOut]) -> String {
    let start = outs.iter().map(|o| o.started_us).min().unwrap_or(0);
    let end = outs
        .iter()
        .map(|o| o.started_us + o.took_us)
        .max()
        .unwrap_or(0);
    let secs = (end - start) as f64 / 1e6;
    let answered: usize = outs.iter().map(|o| o.answered).sum();
    let nested: usize = outs.iter().map(|o| o.nested).sum();
    let mut samples = Samples::default();
    for out in outs {
        for (label, us) in &out.samples {
            let kind = Kind::ALL.into_iter().find(|k| k.label() == label).unwrap();
            samples.add(kind, Duration::from_micros(*us));
        }
    }
    let mut report = format!(
        "load-postgres: {WORKERS} worker processes, {answered} calls answered (+{nested} nested) in {secs:.2} s: {:.1} calls/s ({:.1} tool calls/s with the nested ones)\n",
        answered as f64 / secs,
        (answered + nested) as f64 / secs
    );
    report += &format!(
        "load-postgres: {:<16} {:>7} {:>10} {:>10} {:>10}\n",
        "kind", "calls", "p50 ms", "p99 ms", "max ms"
    );
    for kind in Kind::ALL {
        if let Some(kind_samples) = samples.by_kind.get(&kind) {
            report += &format!(
                "load-postgres: {:<16} {}\n",
                kind.label(),
                figures::summary(kind_samples)
            );
        }
    }
    report += &format!(
        "load-postgres: {:<16} {}",
        "overall",
        figures::summary(&samples.all())
    );
    report
}
