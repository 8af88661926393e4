//! Siblings through the PostgreSQL store and coordinator: the same checks as with the
//! in-memory ones (`session::siblings`), the siblings found in the shared spec rows.

use super::{connect, factory, runtime};
use crate::session::siblings::siblings_signal_each_other_within_their_tree_only;
use crate::support::postgres::{tenant, url};

#[test]
fn siblings_signal_each_other_through_postgres_and_never_across_trees() {
    let Some(url) = url() else { return };
    runtime().block_on(async {
        let t = tenant("siblings");
        let dir = tempfile::tempdir().unwrap();
        let store = connect(&url).await;
        let factory = factory(&store, &t);
        // Ids are unique per store, whatever the tenant: make them this test's own.
        let p = format!("p-{t}");
        let q = format!("q-{t}");
        siblings_signal_each_other_within_their_tree_only(&factory, &t, &p, &q, dir.path()).await;
    });
}
