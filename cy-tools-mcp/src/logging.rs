//! The level of log messages a client asked for: `logging/setLevel` for a connection, or a
//! request's own `_meta["io.modelcontextprotocol/logLevel"]`.

#![allow(deprecated)] // MCP 2026-07-28 deprecates logging; 2025-11-25 clients still use it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use cy_tools::call::LogLevel;
use rmcp::RoleServer;
use rmcp::model::LoggingLevel;
use rmcp::service::RequestContext;

/// The level a client gets until it asks for another.
pub(super) const DEFAULT_LEVEL: LogLevel = LogLevel::Info;

const LEVELS: [LogLevel; 8] = [
    LogLevel::Debug,
    LogLevel::Info,
    LogLevel::Notice,
    LogLevel::Warning,
    LogLevel::Error,
    LogLevel::Critical,
    LogLevel::Alert,
    LogLevel::Emergency,
];

/// The level a connection's client set, shared by the server's clones that serve it.
#[derive(Clone, Debug)]
pub(super) struct ConnectionLevel(Arc<AtomicU8>);

impl Default for ConnectionLevel {
    fn default() -> Self {
        ConnectionLevel(Arc::new(AtomicU8::new(index(DEFAULT_LEVEL))))
    }
}

impl ConnectionLevel {
    pub(super) fn set(&self, level: LogLevel) {
        self.0.store(index(level), Ordering::Relaxed);
    }

    fn get(&self) -> LogLevel {
        LEVELS
            .get(usize::from(self.0.load(Ordering::Relaxed)))
            .copied()
            .unwrap_or(DEFAULT_LEVEL)
    }

    /// The level for a call in `context`, `None` for none at all: the request's own
    /// (`_meta["io.modelcontextprotocol/logLevel"]`); else none for a 2026-07-28 request, whose
    /// client opts in per request; else the connection's (which a stateless server never
    /// changes).
    /// `modern`: whether the request speaks 2026-07-28 or later (the caller has asked
    /// [`is_modern`](super::protocol::is_modern) already).
    pub(super) fn for_request(
        &self,
        context: &RequestContext<RoleServer>,
        modern: bool,
    ) -> Option<LogLevel> {
        if let Some(level) = context.meta.log_level() {
            return Some(from_mcp(level));
        }
        (!modern).then(|| self.get())
    }
}

fn index(level: LogLevel) -> u8 {
    // Eight levels: the position always fits.
    LEVELS
        .iter()
        .position(|l| *l == level)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(1)
}

pub(super) fn from_mcp(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

pub(super) fn to_mcp(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_and_keep_their_order() {
        let level = ConnectionLevel::default();
        assert_eq!(level.get(), LogLevel::Info);
        for l in LEVELS {
            assert_eq!(from_mcp(to_mcp(l)), l);
            level.set(l);
            assert_eq!(level.get(), l);
        }
        assert!(LEVELS.windows(2).all(|w| w[0] < w[1]));
    }
}
