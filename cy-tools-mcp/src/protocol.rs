//! Which protocol a request speaks, read without copies: every call asks (its log level, who it
//! may ask), and `RequestContext::protocol_version` clones the version out of the request's
//! `_meta` or the connection's handshake each time.

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use serde_json::Value;

/// Where a 2026-07-28 request names its protocol.
const META_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Whether the request speaks protocol 2026-07-28 or later: its own `_meta` version, else the
/// connection's from `initialize`.
pub(super) fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    let modern = ProtocolVersion::V_2026_07_28;
    match context.meta.0.get(META_KEY) {
        Some(Value::String(version)) => version.as_str() >= modern.as_str(),
        _ => context
            .peer
            .peer_info()
            .is_some_and(|info| info.protocol_version.as_str() >= modern.as_str()),
    }
}
