//! [`SpecStore`]: where session specs are kept between processes.

use super::spec::SessionSpec;
use crate::BoxFuture;
use crate::services::ServiceError;

/// Where session specs are kept, so a session can be resumed by id in another process.
pub trait SpecStore: Send + Sync {
    /// Stores a new spec.
    ///
    /// # Errors
    /// [`InvalidInput`](crate::services::ServiceErrorKind::InvalidInput) when a spec with the same id is
    /// already stored (specs are never overwritten), or the store's own failure.
    fn insert_spec<'a>(&'a self, spec: &'a SessionSpec) -> BoxFuture<'a, Result<(), ServiceError>>;

    /// The spec stored under `session_id`, if any.
    fn load_spec<'a>(
        &'a self,
        session_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<SessionSpec>, ServiceError>>;

    /// Ids of the stored children of `parent_id`, oldest first.
    fn children<'a>(
        &'a self,
        parent_id: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ServiceError>>;
}
