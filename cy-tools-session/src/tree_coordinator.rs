//! `TreeCoordinator`: the coordinator as one subagent sees it: its own tree only, and its
//! siblings by name.
//!
//! The design lets a child address a sibling (another child of its parent) by name. A
//! subagent at the maximum depth has no factory at all (it may start no children), yet it is the
//! one most likely to hand work to a sibling, so siblings are resolved where every session's
//! signals go: the coordinator its context carries. The spec store answers who the siblings
//! are, so this works in any worker that shares the store (SQLite or PostgreSQL).

use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    BoxFuture, SessionSpec,
    services::{Coordinator, ServiceError, ServiceErrorKind},
    session::SpecStore,
};
use serde_json::Value;

/// The coordinator of one subagent session: signals reach only sessions of its own tree (the
/// root it descends from and that root's descendants, in its tenant), and `to` may name a
/// sibling by its name (`worker-2`, its id without the parent's prefix) or, when exactly one
/// other sibling was made from it, by its profile (`worker`). A session waits for its own
/// signals only.
pub(super) struct TreeCoordinator {
    inner: Arc<dyn Coordinator>,
    specs: Arc<dyn SpecStore>,
    session: Arc<SessionSpec>,
}

impl TreeCoordinator {
    /// `inner` (the tenant's coordinator) as the subagent `session` sees it.
    pub(super) fn new(
        inner: Arc<dyn Coordinator>,
        specs: Arc<dyn SpecStore>,
        session: Arc<SessionSpec>,
    ) -> Self {
        TreeCoordinator {
            inner,
            specs,
            session,
        }
    }

    fn root(&self) -> &str {
        let me = &self.session.identity;
        me.lineage.first().unwrap_or(&me.session_id)
    }

    fn parent(&self) -> &str {
        let me = &self.session.identity;
        me.lineage.last().unwrap_or(&me.session_id)
    }

    /// Whether the stored session `spec` is in this session's tree.
    fn in_tree(&self, spec: &SessionSpec) -> bool {
        let root = self.root();
        spec.identity.tenant == self.session.identity.tenant
            && (spec.id() == root
                || spec.identity.lineage.first().map(String::as_str) == Some(root))
    }

    /// The siblings' ids made from `profile` (all siblings for `None`), this session left out.
    async fn siblings(&self, profile: Option<&str>) -> Result<Vec<String>, ServiceError> {
        let prefix = format!("{}.", self.parent());
        let children = self.specs.children(self.parent()).await?;
        Ok(children
            .into_iter()
            .filter(|id| id != self.session.id())
            .filter(|id| match (profile, short_name(id, &prefix)) {
                (None, _) => true,
                (Some(profile), Some(name)) => profile_of(name) == Some(profile),
                (Some(_), None) => false,
            })
            .collect())
    }

    async fn resolve_in_tree(&self, to: &str) -> Result<String, ServiceError> {
        let to = to.trim();
        // Another tenant's session is as unknown as a missing one: its id says nothing here.
        if let Some(spec) = self.specs.load_spec(to).await?
            && spec.identity.tenant == self.session.identity.tenant
        {
            if self.in_tree(&spec) {
                return Ok(to.to_string());
            }
            return Err(refused(format!(
                "session `{to}` is outside this subagent's tree (root `{}`); a subagent signals only its root's sessions: its parent, its siblings and their children",
                self.root()
            )));
        }
        let sibling = format!("{}.{to}", self.parent());
        if let Some(spec) = self.specs.load_spec(&sibling).await?
            && self.in_tree(&spec)
        {
            return Ok(sibling);
        }
        let by_profile = self.siblings(Some(to)).await?;
        match by_profile.as_slice() {
            [one] => return Ok(one.clone()),
            [] => {}
            several => {
                let prefix = format!("{}.", self.parent());
                return Err(refused(format!(
                    "`{to}` names {} siblings: {}; give one's name",
                    several.len(),
                    listed(several.iter().filter_map(|id| short_name(id, &prefix)))
                )));
            }
        }
        let prefix = format!("{}.", self.parent());
        let all = self.siblings(None).await?;
        Err(refused(format!(
            "no session `{to}` in this subagent's tree; {}",
            if all.is_empty() {
                "it has no siblings yet: give a session's id".to_string()
            } else {
                format!(
                    "its siblings are {} (by name, or by profile when only one has it), or give a session's id",
                    listed(all.iter().filter_map(|id| short_name(id, &prefix)))
                )
            }
        )))
    }
}

/// A child's name under its parent: its id without the parent's id and the dot.
fn short_name<'a>(id: &'a str, parent_prefix: &str) -> Option<&'a str> {
    id.strip_prefix(parent_prefix)
}

/// The profile of a child named `worker-2` (`worker`): names are the profile, a dash and a
/// number.
fn profile_of(name: &str) -> Option<&str> {
    let (profile, n) = name.rsplit_once('-')?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(profile)
}

fn listed<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn refused(message: String) -> ServiceError {
    ServiceError::new(ServiceErrorKind::InvalidInput, message)
}

impl Coordinator for TreeCoordinator {
    fn signal<'a>(
        &'a self,
        to: &'a str,
        name: &'a str,
        payload: Value,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(async move {
            let id = self.resolve_in_tree(to).await?;
            self.inner.signal(&id, name, payload).await
        })
    }

    fn wait<'a>(
        &'a self,
        session: &'a str,
        name: &'a str,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<Value>, ServiceError>> {
        Box::pin(async move {
            if session != self.session.id() {
                return Err(refused(format!(
                    "session `{}` may wait for its own signals only, not for `{session}`'s",
                    self.session.id()
                )));
            }
            self.inner.wait(session, name, timeout).await
        })
    }

    fn resolve<'a>(&'a self, to: &'a str) -> BoxFuture<'a, Result<String, ServiceError>> {
        Box::pin(self.resolve_in_tree(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_childs_name_gives_its_profile() {
        assert_eq!(profile_of("worker-2"), Some("worker"));
        assert_eq!(profile_of("data-loader-10"), Some("data-loader"));
        assert_eq!(profile_of("worker"), None);
        assert_eq!(profile_of("worker-"), None);
        assert_eq!(profile_of("worker-x1"), None);
        assert_eq!(short_name("p.worker-1", "p."), Some("worker-1"));
        assert_eq!(short_name("q.worker-1", "p."), None);
    }
}
