//! The factory's children: a child session made from a parent's subagent profile, and run
//! with the subagent runner (the application's, or the model runner handed in when the profile
//! names a model). Kept apart from `factory.rs`, which builds sessions from specs:
//! this is the part that makes sessions from other sessions.

use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    CancellationToken, SessionSpec,
    services::{ChildOutcome, ChildRequest, Sandbox, ServiceError, ServiceErrorKind},
    session::SubagentProfile,
};

use super::LocalSessionFactory;
use crate::compose::Extras;
use crate::rules::{child_profile, child_spec, invalid};
use crate::tools::delegate;
use crate::{SubagentRun, SubagentRunner};
use cy_tools::Session;

impl LocalSessionFactory {
    /// Makes a child of `parent` from its subagent profile `request.profile`.
    ///
    /// # Errors
    /// See [`cy_tools::services::ChildSessionFactory::spawn_child`].
    pub async fn spawn_child(
        &self,
        parent: &Session,
        request: ChildRequest,
    ) -> Result<Session, ServiceError> {
        let (Some(spec), Some(env)) = (parent.spec(), parent.env()) else {
            return Err(invalid(format!(
                "session `{}` was not built by a session factory (it has no spec or no workspace), so it cannot have children; build it with `LocalSessionFactory::create`",
                parent.id()
            )));
        };
        self.spawn_child_of(spec, env, request).await
    }

    pub(crate) async fn spawn_child_of(
        &self,
        parent: &SessionSpec,
        parent_env: &Arc<dyn Sandbox>,
        request: ChildRequest,
    ) -> Result<Session, ServiceError> {
        let profile = child_profile(parent, &request.profile)?;
        let existing = self.host.specs.children(parent.id()).await?.len();
        for n in existing + 1..existing + 65 {
            let id = format!("{}.{}-{n}", parent.id(), profile.name);
            let folder = request
                .workspace
                .clone()
                .unwrap_or_else(|| format!("subagents/{}-{n}", profile.name));
            // Scoping through the parent's view refuses a folder outside it, and creates it.
            let env = parent_env.scoped(&folder)?;
            // A remote view's folder is made, or refused, at its first use: here, so a folder
            // that cannot be a child's fails the spawn, as a local one does.
            env.stat(".").await?;
            let host_path = parent_env.resolve_path(&folder)?;
            let spec = child_spec(parent, profile, id, &host_path);
            // A child starts its own servers: those of its parent its profile names tools of.
            let extras = self.with_mcp_servers(&spec, Extras::new()).await?;
            let spec = Arc::new(spec);
            let child = self.build(Arc::clone(&spec), env, request.parent_call.clone(), &extras)?;
            match self.host.specs.insert_spec(&spec).await {
                Ok(()) => return Ok(child),
                // Another child took this number meanwhile: take the next.
                Err(err) if err.kind() == ServiceErrorKind::InvalidInput => {}
                Err(err) => return Err(err),
            }
        }
        Err(ServiceError::new(
            ServiceErrorKind::Other,
            format!(
                "could not find a free id for a child of `{}`; try again",
                parent.id()
            ),
        ))
    }

    pub(crate) async fn run_child_of(
        &self,
        parent: &SessionSpec,
        parent_env: &Arc<dyn Sandbox>,
        request: ChildRequest,
        task: &str,
        cancel: &CancellationToken,
    ) -> Result<ChildOutcome, ServiceError> {
        let profile = child_profile(parent, &request.profile)?.clone();
        let Some(runner) = self.runner_for(&profile) else {
            return Err(ServiceError::new(
                ServiceErrorKind::Unavailable,
                delegate::UNAVAILABLE,
            ));
        };
        let child = self.spawn_child_of(parent, parent_env, request).await?;
        let limit = Duration::from_millis(profile.limits.timeout_ms);
        let child_cancel = cancel.child_token();
        let _stop = child_cancel.clone().drop_guard();
        let run = runner.run(SubagentRun {
            session: &child,
            profile: &profile,
            task,
            cancel: &child_cancel,
        });
        match tokio::time::timeout(limit, run).await {
            Ok(Ok(answer)) => Ok(ChildOutcome {
                session_id: child.id().to_string(),
                answer,
            }),
            Ok(Err(err)) => Err(ServiceError::new(
                err.kind(),
                format!(
                    "subagent `{}` (session `{}`) failed: {err}",
                    profile.name,
                    child.id()
                ),
            )),
            Err(_) => Err(ServiceError::new(
                ServiceErrorKind::TimedOut,
                format!(
                    "subagent `{}` (session `{}`) did not finish within {} ms and was stopped; give it a smaller task, or split the work",
                    profile.name,
                    child.id(),
                    profile.limits.timeout_ms
                ),
            )),
        }
    }

    /// The application's runner; without one, the model runner for a profile that names a
    /// model.
    fn runner_for(&self, profile: &SubagentProfile) -> Option<Arc<dyn SubagentRunner>> {
        match (&self.host.runner, &self.host.model_runner) {
            (Some(runner), _) => Some(Arc::clone(runner)),
            (None, Some(runner)) if profile.model.is_some() => Some(Arc::clone(runner)),
            _ => None,
        }
    }

    /// Whether `spec`'s delegation tools can run a subagent: with the application's runner,
    /// or with a model runner when one of its profiles names a model.
    pub(super) fn can_run_subagents(&self, spec: &SessionSpec) -> bool {
        self.host.runner.is_some()
            || (self.host.model_runner.is_some()
                && spec.subagents.iter().any(|p| p.model.is_some()))
    }
}
