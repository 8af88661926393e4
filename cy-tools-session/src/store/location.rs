//! `StoreLocation`: where the sessions are kept, from a `--store` value or `CY_TOOLS_STORE`.

use std::path::PathBuf;

use cy_tools::services::{ServiceError, ServiceErrorKind};

/// The environment variable a store location is read from when none is given.
pub const STORE_VAR: &str = "CY_TOOLS_STORE";

/// Where a worker keeps its sessions.
///
/// * `postgres://…` or `postgresql://…`: a PostgreSQL database, shared by every worker that
///   names it (feature `postgres`);
/// * `sqlite:FOLDER`, `sqlite://FOLDER` or a plain `FOLDER`: the embedded store, a SQLite
///   database (`sessions.db`) and a chat file (`chat.jsonl`) in that folder.
///
/// ```
/// use cy_tools_session::store::StoreLocation;
///
/// let at = StoreLocation::parse("postgres://cy@db:5432/cy").unwrap();
/// assert_eq!(at, StoreLocation::Postgres("postgres://cy@db:5432/cy".into()));
/// let at = StoreLocation::parse("sqlite:state").unwrap();
/// assert_eq!(at, StoreLocation::Embedded("state".into()));
/// assert_eq!(StoreLocation::parse("state").unwrap(), at);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreLocation {
    /// The embedded SQLite store in this folder.
    Embedded(PathBuf),
    /// A PostgreSQL database, by its URL (which may hold a password: never print it).
    Postgres(String),
}

impl StoreLocation {
    /// Reads a location.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) for an empty value or another URL
    /// scheme.
    pub fn parse(text: &str) -> Result<Self, ServiceError> {
        let text = text.trim();
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(StoreLocation::Postgres(text.to_string()));
        }
        let folder = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"))
            .unwrap_or(text);
        let scheme = folder.split_once("://").map(|(scheme, _)| scheme);
        if folder.is_empty() || scheme.is_some() {
            return Err(ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "the store `{}` is neither a PostgreSQL URL nor a folder; give postgres://USER:PASSWORD@HOST:PORT/DATABASE, or a folder for the embedded SQLite store",
                    scheme.map_or(text.to_string(), |s| format!("{s}://…"))
                ),
            ));
        }
        Ok(StoreLocation::Embedded(PathBuf::from(folder)))
    }

    /// The location in `CY_TOOLS_STORE`, if it is set and not empty.
    ///
    /// # Errors
    /// As [`parse`](Self::parse), naming the variable.
    pub fn from_env() -> Result<Option<Self>, ServiceError> {
        match std::env::var(STORE_VAR) {
            Ok(text) if !text.trim().is_empty() => StoreLocation::parse(&text)
                .map(Some)
                .map_err(|err| ServiceError::new(err.kind(), format!("`{STORE_VAR}`: {err}"))),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_folders() {
        assert_eq!(
            StoreLocation::parse("postgresql://h/db").unwrap(),
            StoreLocation::Postgres("postgresql://h/db".into())
        );
        assert_eq!(
            StoreLocation::parse("sqlite:///var/lib/cy").unwrap(),
            StoreLocation::Embedded("/var/lib/cy".into())
        );
        let err = StoreLocation::parse("mysql://u:secret@h/db")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("the store `mysql://…` is neither"), "{err}");
        assert!(!err.contains("secret"), "{err}");
        assert!(StoreLocation::parse(" ").is_err());
    }
}
