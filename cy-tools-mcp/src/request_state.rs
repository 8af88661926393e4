//! The signed `requestState` of an approval asked in 2026-07-28's multi-round form.
//!
//! The server keeps nothing between the round that asks and the round that answers: the state
//! travels with the client, signed with HMAC-SHA256 under a key every replica shares
//! ([`STATE_KEY_ENV`]), so whichever replica the answer reaches can check it. It is bound to
//! the session it was asked in ([`Scope`]: session id, tenant and workspace) and to the call
//! (the tool's name and a digest of its arguments), expires after [`STATE_LIFETIME`], and
//! carries a random nonce spent once; a state that was changed, made up, signed under another
//! key, issued in another session or for another call, expired or already used is refused.
//!
//! Where the nonce is spent: in the store when replicas share one (a row inserted atomically,
//! [`SpentNonces`](cy_tools::approval::SpentNonces), before the call runs, so no second replica can
//! run it, even while the first call still runs); without one, in this process only, so each
//! replica sharing the key could run an answer once within its lifetime.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit as _, Mac as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The environment variable holding the key every replica signs approval state with.
pub const STATE_KEY_ENV: &str = "CY_TOOLS_MCP_STATE_KEY";

/// Shortest key accepted, in bytes.
pub const MIN_STATE_KEY_LEN: usize = 32;

/// How long an approval question stays answerable.
pub const STATE_LIFETIME: Duration = Duration::from_secs(600);

/// Why a state sent back is refused; each reads as the end of "... and " in the refusal.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum StateError {
    Forged,
    OtherSession,
    OtherCall,
    Expired,
    Replayed,
}

/// The session an approval was asked in: a state is good in that session alone, so an answer
/// given for session A's call cannot run in session B's workspace on a replica that shares
/// the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Scope {
    pub(super) session: String,
    pub(super) tenant: String,
    /// The workspace as the server names it (its folder, or its host and folder).
    pub(super) workspace: String,
}

impl Scope {
    fn digest(&self) -> String {
        digest(&Value::from(vec![
            self.session.as_str(),
            self.tenant.as_str(),
            self.workspace.as_str(),
        ]))
    }
}

/// A state that was accepted: its nonce (spent in this process already) and its expiry, until
/// which a shared store must keep it spent.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Accepted {
    pub(super) nonce: String,
    pub(super) expires_ms: u64,
}

/// The suffix of the id a call approved with a state runs under, naming the state's nonce, so
/// the execution log shows which approval ran it.
pub(super) fn spent_suffix(nonce: &str) -> String {
    format!("#approval-{nonce}")
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StateError::Forged => "the approval state the client sent back (`requestState`) is not one this server signed: it was changed, made up, or signed under another key (replicas must share `CY_TOOLS_MCP_STATE_KEY`); call the tool again without it to be asked anew",
            StateError::OtherSession => "the approval state the client sent back was issued in another session (another session id, tenant or workspace); call the tool again without it to be asked in this one",
            StateError::OtherCall => "the approval state the client sent back was issued for another call (another tool or other arguments); call the tool again without it to be asked anew",
            StateError::Expired => "the approval state the client sent back has expired (an approval question can be answered for 10 minutes); call the tool again to be asked anew",
            StateError::Replayed => "the approval state the client sent back was already used: one approval runs one call; call the tool again to be asked anew",
        })
    }
}

#[derive(Serialize, Deserialize)]
struct Claims {
    /// A digest of the session asked in ([`Scope`]): the client reads the claims, and need
    /// not learn the workspace's path.
    scope: String,
    /// The tool's name.
    tool: String,
    /// SHA-256 of the arguments, keys sorted, hex.
    args: String,
    /// Random, spent once.
    nonce: String,
    /// Expiry, milliseconds since the Unix epoch.
    exp: u64,
}

/// Seals and opens approval state, and remembers the nonces spent in this process.
pub(super) struct StateCodec {
    key: Vec<u8>,
    spent: Mutex<HashMap<String, u64>>,
}

impl StateCodec {
    /// A codec signing with `key`.
    ///
    /// # Errors
    /// The key is shorter than [`MIN_STATE_KEY_LEN`] bytes.
    pub(super) fn new(key: &[u8]) -> Result<Self, String> {
        if key.len() < MIN_STATE_KEY_LEN {
            return Err(format!(
                "`{STATE_KEY_ENV}` is {} bytes long, under the {MIN_STATE_KEY_LEN} a signing key needs; set it to the same long secret on every replica, such as the output of `openssl rand -hex 32`",
                key.len()
            ));
        }
        Ok(StateCodec {
            key: key.to_vec(),
            spent: Mutex::new(HashMap::new()),
        })
    }

    /// A codec with a random key of this process's own: state it signs is good on this
    /// replica only.
    pub(super) fn random() -> Result<Self, String> {
        let key = cy_tools::services::random_hex(32).map_err(|err| err.to_string())?;
        StateCodec::new(key.as_bytes())
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes a key of any length: this cannot fail.
        <Hmac<Sha256>>::new_from_slice(&self.key).expect("HMAC accepts any key length")
    }

    /// The state for an approval of `tool` called with `arguments` in `scope`.
    pub(super) fn seal(
        &self,
        scope: &Scope,
        tool: &str,
        arguments: &Value,
    ) -> Result<String, String> {
        let claims = Claims {
            scope: scope.digest(),
            tool: tool.to_string(),
            args: digest(arguments),
            nonce: cy_tools::services::random_hex(16).map_err(|err| err.to_string())?,
            exp: now_ms() + STATE_LIFETIME.as_millis() as u64,
        };
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).map_err(|e| e.to_string())?);
        let mut mac = self.mac();
        mac.update(body.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        Ok(format!("cy1.{body}.{tag}"))
    }

    /// Checks `state` for a call of `tool` with `arguments` in `scope`, and spends its nonce
    /// in this process.
    pub(super) fn open(
        &self,
        state: &str,
        scope: &Scope,
        tool: &str,
        arguments: &Value,
    ) -> Result<Accepted, StateError> {
        let mut parts = state.split('.');
        let (Some("cy1"), Some(body), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(StateError::Forged);
        };
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StateError::Forged)?;
        let mut mac = self.mac();
        mac.update(body.as_bytes());
        // Constant time, so a forger learns nothing from how long a refusal takes.
        mac.verify_slice(&tag).map_err(|_| StateError::Forged)?;
        let claims: Claims = URL_SAFE_NO_PAD
            .decode(body)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or(StateError::Forged)?;
        if claims.scope != scope.digest() {
            return Err(StateError::OtherSession);
        }
        if claims.tool != tool || claims.args != digest(arguments) {
            return Err(StateError::OtherCall);
        }
        let now = now_ms();
        if claims.exp <= now {
            return Err(StateError::Expired);
        }
        let mut spent = self
            .spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Expired nonces can never be presented again: forgetting them bounds the map.
        spent.retain(|_, exp| *exp > now);
        if spent.insert(claims.nonce.clone(), claims.exp).is_some() {
            return Err(StateError::Replayed);
        }
        Ok(Accepted {
            nonce: claims.nonce,
            expires_ms: claims.exp,
        })
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// SHA-256, hex, of `value` written with every object's keys sorted: the same arguments give
/// the same digest whatever order the client sent their keys in.
fn digest(value: &Value) -> String {
    let mut text = String::new();
    canonical(value, &mut text);
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn scope(session: &str, tenant: &str, workspace: &str) -> Scope {
        Scope {
            session: session.into(),
            tenant: tenant.into(),
            workspace: workspace.into(),
        }
    }

    fn a() -> Scope {
        scope("s-a", "acme", "/w/a")
    }

    #[test]
    fn a_state_opens_once_for_its_own_call_only() {
        let codec = StateCodec::new(KEY).unwrap();
        let args = json!({"path": "a.txt", "content": "x"});
        let state = codec.seal(&a(), "write_file", &args).unwrap();
        assert_eq!(
            codec.open(
                &state,
                &a(),
                "write_file",
                &json!({"path": "b.txt", "content": "x"})
            ),
            Err(StateError::OtherCall)
        );
        assert_eq!(
            codec.open(&state, &a(), "edit_file", &args),
            Err(StateError::OtherCall)
        );
        // Keys in another order are the same arguments.
        let nonce = codec
            .open(
                &state,
                &a(),
                "write_file",
                &json!({"content": "x", "path": "a.txt"}),
            )
            .unwrap();
        assert_eq!(nonce.nonce.len(), 32);
        assert_eq!(
            codec.open(&state, &a(), "write_file", &args),
            Err(StateError::Replayed)
        );
    }

    #[test]
    fn a_state_opens_in_the_session_it_was_asked_in_only() {
        let codec = StateCodec::new(KEY).unwrap();
        let args = json!({"path": "a.txt", "content": "x"});
        let state = codec.seal(&a(), "write_file", &args).unwrap();
        for other in [
            scope("s-b", "acme", "/w/a"),
            scope("s-a", "other", "/w/a"),
            scope("s-a", "acme", "/w/b"),
        ] {
            assert_eq!(
                codec.open(&state, &other, "write_file", &args),
                Err(StateError::OtherSession),
                "{other:?}"
            );
        }
        assert!(codec.open(&state, &a(), "write_file", &args).is_ok());
    }

    #[test]
    fn a_changed_or_foreign_state_is_forged() {
        let codec = StateCodec::new(KEY).unwrap();
        let args = json!({"path": "a.txt"});
        let state = codec.seal(&a(), "write_file", &args).unwrap();
        let other = StateCodec::new(b"another key of thirty-two bytes!!").unwrap();
        assert_eq!(
            other.open(&state, &a(), "write_file", &args),
            Err(StateError::Forged)
        );
        let mut changed = state.clone().into_bytes();
        let at = changed.len() - 5;
        changed[at] = if changed[at] == b'A' { b'B' } else { b'A' };
        let changed = String::from_utf8(changed).unwrap();
        assert_eq!(
            codec.open(&changed, &a(), "write_file", &args),
            Err(StateError::Forged)
        );
        assert_eq!(
            codec.open("cy1.e30.", &a(), "write_file", &args),
            Err(StateError::Forged)
        );
        assert_eq!(
            codec.open("anything", &a(), "write_file", &args),
            Err(StateError::Forged)
        );
        // A replica with the same key accepts it.
        let replica = StateCodec::new(KEY).unwrap();
        assert!(replica.open(&state, &a(), "write_file", &args).is_ok());
    }

    #[test]
    fn a_short_key_is_refused_with_the_fix() {
        let err = StateCodec::new(b"short").err().unwrap();
        assert!(err.contains("openssl rand -hex 32"), "{err}");
    }
}
