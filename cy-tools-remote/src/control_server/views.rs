//! The workspace views the sandbox endpoint keeps between requests, and when it lets them go.
//!
//! Opening a view costs several system calls and its commands' confinement is built once per
//! view, so a view is reused while its session works; and a view owns its session's
//! background processes, which must live on between requests. But each view also holds
//! descriptors and a private temporary folder (`/tmp/cy-run-*`), so keeping every view that
//! ever started a process until the server stopped let any client pile them up. Now:
//!
//! * a view is released once no request is using it, none of its processes is running, and
//!   its session has made no request for the server's `view_idle_timeout`; a periodic sweep
//!   and each new request look for such views;
//! * at most `max_views` are kept: at the cap, a new view first makes room by releasing the
//!   least recently used view that nobody is using and that runs nothing; when every kept view
//!   is in use or runs a process, the new one is refused (`503`) with what to do;
//! * a staging file of a large write that got no part for `view_idle_timeout` (its client
//!   failed, or gave up without abandoning it) is removed, as are the staging files of a view
//!   released.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use cy_tools::services::{ServiceError, ServiceErrorKind};

use super::execute::ServerState;
use cy_tools_sandbox::SandboxView;

/// The views kept, by workspace and scope.
pub(super) struct Views {
    kept: Mutex<HashMap<String, Kept>>,
    idle_timeout: Duration,
    max_views: usize,
}

struct Kept {
    env: SandboxView,
    /// Shared with each [`Lease`] on the view: more than one holder means a request is using
    /// it.
    activity: Arc<Mutex<Activity>>,
}

/// When a view was last used, and the large writes staged in it.
struct Activity {
    last_used: Instant,
    /// Staging file → when its last part arrived.
    staged: HashMap<String, Instant>,
}

/// A view lent to one request; dropping it marks the view used now.
pub(super) struct Lease {
    pub(super) env: SandboxView,
    activity: Arc<Mutex<Activity>>,
}

impl Lease {
    /// Notes that a part of the large write staged in `staging` arrived.
    pub(super) fn staged(&self, staging: &str) {
        lock(&self.activity)
            .staged
            .insert(staging.to_string(), Instant::now());
    }

    /// Notes that the write staged in `staging` was committed or abandoned.
    pub(super) fn unstaged(&self, staging: &str) {
        lock(&self.activity).staged.remove(staging);
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        lock(&self.activity).last_used = Instant::now();
    }
}

impl Views {
    /// No views yet; views idle for `idle_timeout` are released, and at most `max_views` kept.
    pub(super) fn new(idle_timeout: Duration, max_views: usize) -> Self {
        Views {
            kept: Mutex::new(HashMap::new()),
            idle_timeout,
            max_views,
        }
    }

    /// The view kept under `key`, else one `open` makes, kept.
    ///
    /// # Errors
    /// `open`'s error (`422`), or `503` when `max_views` views are kept and each is in use or
    /// runs a process.
    pub(super) fn lease(
        &self,
        key: &str,
        open: impl FnOnce() -> Result<SandboxView, ServiceError>,
    ) -> Result<Lease, (StatusCode, ServiceError)> {
        let mut kept = lock(&self.kept);
        self.release_idle(&mut kept);
        if let Some(view) = kept.get(key) {
            return Ok(Lease {
                env: view.env.clone(),
                activity: Arc::clone(&view.activity),
            });
        }
        if kept.len() >= self.max_views && !make_room(&mut kept) {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "this server already keeps {} workspace views, its `max_views`, and each is in use or runs a background process; retry when a session's processes have ended, or start the server with a higher `--max-views`",
                        self.max_views
                    ),
                ),
            ));
        }
        let env = open().map_err(|err| (StatusCode::UNPROCESSABLE_ENTITY, err))?;
        let activity = Arc::new(Mutex::new(Activity {
            last_used: Instant::now(),
            staged: HashMap::new(),
        }));
        kept.insert(
            key.to_string(),
            Kept {
                env: env.clone(),
                activity: Arc::clone(&activity),
            },
        );
        Ok(Lease { env, activity })
    }

    /// Releases the views idle for `idle_timeout` with nothing running, and removes staging
    /// files that got no part for as long.
    pub(super) fn sweep(&self) {
        self.release_idle(&mut lock(&self.kept));
    }

    /// How many views are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.kept).len()
    }

    /// Drops from `kept` each view no request uses, idle for `idle_timeout` and running
    /// nothing, with its staging files; in the views kept, removes the staging files that got
    /// no part for as long.
    fn release_idle(&self, kept: &mut HashMap<String, Kept>) {
        let now = Instant::now();
        let idle = |at: Instant| now.saturating_duration_since(at) >= self.idle_timeout;
        kept.retain(|_, view| {
            let unused = Arc::strong_count(&view.activity) == 1;
            let mut activity = lock(&view.activity);
            let stale: Vec<String> = if unused && idle(activity.last_used) {
                if view.env.running_processes() == 0 {
                    remove_staged(&view.env, activity.staged.drain().map(|(s, _)| s).collect());
                    return false;
                }
                activity.staged.drain().map(|(s, _)| s).collect()
            } else {
                let stale = activity
                    .staged
                    .iter()
                    .filter(|(_, at)| idle(**at))
                    .map(|(s, _)| s.clone())
                    .collect::<Vec<_>>();
                for staging in &stale {
                    activity.staged.remove(staging);
                }
                stale
            };
            remove_staged(&view.env, stale);
            true
        });
    }
}

/// Releases the least recently used view that no request is using and that runs nothing;
/// whether there was one.
fn make_room(kept: &mut HashMap<String, Kept>) -> bool {
    let oldest = kept
        .iter()
        .filter(|(_, view)| {
            Arc::strong_count(&view.activity) == 1 && view.env.running_processes() == 0
        })
        .min_by_key(|(_, view)| lock(&view.activity).last_used)
        .map(|(key, _)| key.clone());
    let Some(key) = oldest else {
        return false;
    };
    if let Some(view) = kept.remove(&key) {
        let staged = lock(&view.activity)
            .staged
            .drain()
            .map(|(s, _)| s)
            .collect();
        remove_staged(&view.env, staged);
    }
    true
}

/// Removes staging files on the blocking pool, keeping the view open until they are gone.
fn remove_staged(env: &SandboxView, staged: Vec<String>) {
    if staged.is_empty() {
        return;
    }
    let env = env.clone();
    tokio::spawn(async move {
        for staging in staged {
            if let Err(err) = env.abandon_staged(staging).await {
                tracing::warn!("could not remove a stale staging file: {err}");
            }
        }
    });
}

/// Sweeps the server's views every quarter of their idle timeout (at least every minute), so
/// a view is released even when no request comes after it, until the server is gone.
pub(super) async fn sweep_while(server: Weak<ServerState>) {
    let every = match server.upgrade() {
        Some(state) => {
            (state.views.idle_timeout / 4).clamp(Duration::from_millis(20), Duration::from_secs(60))
        }
        None => return,
    };
    loop {
        tokio::time::sleep(every).await;
        let Some(state) = server.upgrade() else {
            return;
        };
        state.views.sweep();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cy_tools_sandbox::LocalSandbox;

    fn open(dir: &std::path::Path) -> impl FnOnce() -> Result<SandboxView, ServiceError> {
        let env = LocalSandbox::new(dir).unwrap().env();
        move || Ok(env)
    }

    #[tokio::test]
    async fn at_the_cap_the_least_recently_used_idle_view_makes_room() {
        let dir = tempfile::tempdir().unwrap();
        let views = Views::new(Duration::from_secs(3600), 2);
        drop(views.lease("a", open(dir.path())).unwrap());
        drop(views.lease("b", open(dir.path())).unwrap());
        // `a` is used again, so `b` is the least recently used.
        drop(views.lease("a", open(dir.path())).unwrap());
        let c = views.lease("c", open(dir.path())).unwrap();
        assert_eq!(views.len(), 2);
        let kept: Vec<String> = lock(&views.kept).keys().cloned().collect();
        assert!(kept.contains(&"a".to_string()) && kept.contains(&"c".to_string()));

        // Both in use: a third is refused, with what to do.
        let a = views.lease("a", open(dir.path())).unwrap();
        let (status, err) = views.lease("d", open(dir.path())).err().unwrap();
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(err.kind(), ServiceErrorKind::Unavailable);
        assert!(err.to_string().contains("`--max-views`"), "{err}");
        drop((a, c));
        views.lease("d", open(dir.path())).unwrap();
    }

    #[tokio::test]
    async fn an_idle_view_is_released_but_not_while_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let views = Views::new(Duration::from_millis(50), 8);
        let lease = views.lease("a", open(dir.path())).unwrap();
        tokio::time::sleep(Duration::from_millis(80)).await;
        views.sweep();
        assert_eq!(views.len(), 1, "released while a request used it");
        drop(lease);
        views.sweep();
        assert_eq!(views.len(), 1, "released before it was idle");
        tokio::time::sleep(Duration::from_millis(80)).await;
        views.sweep();
        assert_eq!(views.len(), 0);
    }
}
